// File: models/collective/nvls_tree_lowering.hpp
// An NvlsTreePlan lowered onto a System: the task DAG or the flow groups that the executors run
// (execution.hpp), as NVLS (nvls_lowering.hpp) and Tree (tree_lowering.hpp) are.
//
// Chunk-accurate (nvls_tree_dag): every reduce and store is a task of grouped flows on its node's
// NVSwitch ports, one per port load, at 1 / nvls_efficiency wire bytes per payload byte; every up
// and down is a connection task on the edge's route between the two heads' NICs (split over its
// adaptive-routing lanes, consecutive pieces round-robin over its queue pairs). A task starts once
// the same step's previous piece has drained and what it forwards has been delivered and held:
// an NVSwitch operation half of NCCL's NVLink NVLS Tree hop (NCCL's model charges one 25 us hop
// for the load-reduce and the store together, as it does for NVLS on one node), a network message
// NCCL's NET NVLS Tree hop (20.9 us on Hopper). So at 8 B a piece takes 25 us + 2 depth x 20.9 us
// plus the paths' own latencies: NCCL's NVLS Tree latency.
//
// Pipelined (nvls_tree_pipeline): each channel is flow groups of its tree edges, every edge
// carrying its head's pieces (split over lanes and queue pairs as rings and trees are), and one
// flow group of the NVSwitch ports of every node, each port carrying the sum of its operations'
// loads; the edges and the ports move at two paces, since they share no link. Once every channel
// has drained, the channels' times come from ChannelTiming (channel_timing.hpp): slice sharing of
// every piece of every channel, or, where that cannot matter or the plan is too long, the per-step
// recurrence below, each step at the channel's floor (its busiest head's bytes over the drain)
// or, where faster, at an even share of its links. Both see a node's operations of one loop for
// all its heads together (their pieces are equal, bar the last loop's remainder, and they start
// together): slice sharing as four transfers over the ports they cross (the reduce's reads on
// every GPU's port up and returns on each head's port down, the store's writes on each head's
// port up and multicast on every GPU's port down), a few lanes per port where one per head would
// cost some thirty times more for the same times. With tau = piece x seconds per byte of the step
// at (node, head) and d its delay (an operation: its hold and its ports' latency; an edge: NCCL's
// hop latency and its path's latency), per loop and head:
//   reduce(m) = reduce'(m) + tau                        (all heads at once)
//   ready(m)  = max(reduce(m) + d, max over children y of up(y) + d_y)
//   up(m)     = max(up'(m), ready(m)) + tau
//   result(m) = ready(root) at the root, else down(m) + d
//   down(m)   = max(down'(m), result(parent)) + tau
//   store(m)  = max(store'(m), result(m) of every head) + tau, held at store(m) + d
// (primes: the same step's previous piece), the chunk run's dependencies step for step; solved in
// closed form over the leading loops that are alike (nvls_tree_time.hpp).
//
// Cost: one flow per edge, lane and queue pair and one per port, whatever the size, plus the
// recurrence (a few operations per node and head for the loops alike, and per piece for the last
// few) and, where it runs, slice sharing (an
// event per start and drain of each edge's piece and each node's operation part per loop).
#pragma once

#include "models/collective/collective_timing.hpp"
#include "models/collective/communicator.hpp"
#include "models/collective/group_pipeline.hpp"
#include "models/collective/nvls_tree_plan.hpp"
#include "models/collective/transfer_dag.hpp"
#include "models/system/system.hpp"
#include "sim/flow_network.hpp"
#include "sim/time.hpp"

#include <vector>

namespace railsim::models {

struct NvlsTreeTiming {
  // The tree edges as for a Tree: NCCL's NET NVLS Tree hop latency, the cap of each edge (a
  // head's share of perChMaxNVLSTreeBw, in payload B/s), queue pairs, the base latency. The
  // NVSwitch operations have no cap, as NVLS's have none in NCCL's model.
  CollectiveTiming network;
  sim::Duration nvls_hold{};      // per reduce or store, from its delivery
  double nvls_wire_factor = 1.0;  // 1 / nvls_efficiency
};

// NCCL's NVLS heads (nccl:src/graph/connect.cc): up to `count` GPUs of `comm`, in index order, each
// the first of its node-0 NIC (ring_layout.hpp's affinity), so that every head sends through a NIC
// of its own. Throws sim::InputError when fewer than two such GPUs exist.
std::vector<int> nvls_tree_heads(const System& system, const Communicator& comm, int count);

// Both throw sim::InputError if the system's GPUs do not share an NVSwitch. `traced`: name each
// task's sender ("reduce", "up", "down", "store").
TransferDag nvls_tree_dag(const System& system,
                          const NvlsTreePlan& plan,
                          const NvlsTreeTiming& timing,
                          bool traced);

// The timing reads the links' latencies and capacities from `network` now.
GroupPipeline nvls_tree_pipeline(const System& system,
                                 const sim::FlowNetwork& network,
                                 NvlsTreePlan plan,
                                 const NvlsTreeTiming& timing,
                                 bool traced);

}  // namespace railsim::models
