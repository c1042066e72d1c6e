// File: models/collective/collnet_plan.hpp
// NCCL's CollNet AllReduce over InfiniBand SHARP as a TreePlan whose upper vertices are the
// switches that reduce (nccl:src/device/all_reduce.h, src/graph/connect.cc, src/enqueue.cc).
// Inside a node the GPUs reduce to a head beside a NIC; the head sends the node's sum up into the
// SHARP tree of its NIC's rail (reduction_tree.hpp), whose switches add the sums of all nodes,
// and gets the whole sum back down the same tree, which it passes on to the node's GPUs.
//
// Chain: channel c's GPUs of a node form a chain to its head, GPU c mod G (as Tree's chains),
// reducing up it and broadcasting down it.
// Direct (NVSwitch nodes): every node has the same heads, one GPU per NIC (CommNics::heads); a
// channel's data is cut into a piece per head, every GPU sends each head its piece straight over
// NVLink, the head adds them up, and once the sum comes back sends it to every GPU of its node.
// As trees: one per channel and head, a star around the head, each carrying a heads-th of the
// channel's bytes.
//
// So per AllReduce of S bytes each head's NIC carries S / heads each way (Direct), or its
// channels' share (Chain), and each link of a SHARP tree the same, whatever the node count: a
// ring sends 2 (n - 1) / n S through every NIC.
#pragma once

#include "models/collective/collective_types.hpp"
#include "models/collective/communicator.hpp"
#include "models/collective/tree_plan.hpp"
#include "models/system/system.hpp"
#include "sim/bytes.hpp"

namespace railsim::models {

// A CollNet Chain plan of `channels` channels, or a Direct one of `channels` x `heads` trees
// (heads: up to that many GPUs with a NIC of their own). Throws sim::InputError for fewer than
// two nodes, no channel, a negative size, a Direct plan on a node without an NVSwitch, or a
// SHARP tree the fabric cannot build (reduction_tree.hpp).
TreePlan make_collnet_plan(const System& system,
                           Algorithm algorithm,
                           sim::Bytes size,
                           const Communicator& comm,
                           int channels,
                           int heads);

}  // namespace railsim::models
