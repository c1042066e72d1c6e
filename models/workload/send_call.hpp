// File: models/workload/send_call.hpp
// A point-to-point transfer between two ranks, as ncclSend / ncclRecv move a pipeline stage's
// activations to the next stage (or its gradients back): inside a node over the GPUs' NVLink or
// PCIe route, between nodes out of the NIC nearest the sender and into that nearest the
// receiver, or over each of their NICs in turn where a GPU has several (nic_affinity.hpp; a pair
// is one GPU index on two nodes, so PXN has nothing to relay).
//
// Between nodes NCCL runs a peer's traffic on its p2p channels per network peer (p2p_plan.hpp,
// p2p_net_channels), each its own queue pair: so many flows of equal shares, which ECMP hashes
// apart. The transfer starts when called; the receiver is taken
// to have posted its buffer (Megatron posts sends and receives together).
#pragma once

#include "models/collective/communicator.hpp"
#include "models/system/system.hpp"
#include "sim/bytes.hpp"
#include "sim/flow_network.hpp"

#include <functional>

namespace railsim::models {

// Starts the transfer of `size` bytes from rank 0 of `pair` to its rank 1 (a communicator of two
// ranks: two nodes of one GPU, or one node of two GPUs) and returns at once; `done` runs once its
// last byte is delivered. Throws sim::InputError for a pair of other than two ranks or one the
// system cannot hold, before anything starts.
void start_send(const System& system,
                sim::FlowNetwork& network,
                const Communicator& pair,
                sim::Bytes size,
                std::function<void()> done);

}  // namespace railsim::models
