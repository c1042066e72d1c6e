// File: models/collective/tree_executor.hpp
// TreeExecutor: runs a TreePlan over a System's links, in the two ways rings run (design.md §4).
//
// Chunk-accurate: every chunk transfer of the plan is a task of a TransferDag (transfer_dag.hpp):
// flows on the edge's route (split over its adaptive-routing lanes; consecutive chunks of an
// edge round-robin over its queue pairs), started once the edge has sent its previous chunk and
// the sender holds the data, NCCL's Tree hop latency after it landed.
//
// Pipelined: each channel is flow groups (group_pipeline.hpp) whose members are its 2(n-1)
// edges, each carrying the channel's bytes, so they all move at rho, the pace of the slowest.
// Its time then follows the chunk recurrence with every edge at rho: with tau = chunk / rho
// and d the edge's delay (hop latency + its path's latency),
//   up(x)   = max(up'(x),   max over children y of up(y) + d_y) + tau
//   down(x) = max(down'(x), down(parent) + d_parent, or at the root's children the root's
//             reduce: max over its children y of up(y) + d_y) + tau
// (primes: the edge's previous chunk) and the channel is done when the last chunk is held.
// With one chunk size this is L tau + (H - 1) tau + the sum of d along the longest leaf-root-
// leaf path of H edges: the drain time plus the pipeline's fill.
//
// Edges: inside a node over NVLink (or PCIe), between nodes head to head over the head GPU's
// NIC at both ends (trees are symmetric: the same NIC to enter and leave).
#pragma once

#include "models/collective/communicator.hpp"
#include "models/collective/ring_executor.hpp"
#include "models/collective/tree_plan.hpp"
#include "models/system/system.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"
#include "sim/time.hpp"

#include <functional>
#include <memory>

namespace railsim::models {

class TreeExecutor {
 public:
  // `timing` as for rings: base and per-hop latencies (NCCL's Tree ones), wire factor,
  // per-connection cap, queue pairs.
  TreeExecutor(const System& system,
               sim::FlowNetwork& network,
               sim::Simulator& simulator,
               TreePlan plan,
               RingTiming timing);
  ~TreeExecutor();

  TreeExecutor(const TreeExecutor&) = delete;
  TreeExecutor& operator=(const TreeExecutor&) = delete;

  // Starts the run after the base latency; `done` gets the time the last chunk was held.
  void start(Execution execution, std::function<void(sim::SimTime)> done);

  bool finished() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace railsim::models
