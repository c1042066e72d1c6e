// File: models/collective/ring_executor.hpp
// RingExecutor: runs a RingPlan over a System's links, in one of two ways.
//
// Chunk-accurate: every slice transfer of the plan is a flow (split evenly over the paths its
// route offers: adaptive-routing lanes). A transfer starts when its connection has sent the
// previous one (drained) and the data it forwards has arrived (delivered) plus the step's hop
// latency: NCCL's per-hop software latency, which the links do not carry. Exact for small
// messages and short rings; the flow count grows with size x ranks.
//
// Pipelined: each channel's pipeline is flow groups (one per path of its routes: queue pairs or
// adaptive lanes, each carrying an equal share), whose members are the connections, each
// moving everything it carries in the plan at the group's common rate, the pace of the slowest
// hop. When a channel has drained, its time comes from the pipeline's recurrence
// (pipeline_time.hpp): the bottleneck hops move at the group's rate, the others at the rate an
// even share of their links gives them when that is faster (they run ahead while the pipeline
// fills), and the fill and stalls follow. Cost: one flow per connection and path, whatever the
// size, plus one arithmetic step per slice transfer (a closed form for the longest rings).
//
// Both start at the current simulated time plus NCCL's base latency and call `done` with the
// time the last byte was delivered.
#pragma once

#include "models/collective/communicator.hpp"
#include "models/collective/ring_layout.hpp"
#include "models/collective/ring_plan.hpp"
#include "models/system/system.hpp"
#include "sim/bandwidth.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"
#include "sim/time.hpp"

#include <functional>
#include <memory>
#include <string_view>

namespace railsim::models {

enum class Execution { kChunk, kPipelined };

constexpr std::string_view execution_name(Execution execution) {
  return execution == Execution::kChunk ? "chunk" : "pipelined";
}

// NCCL's software costs and the protocol's effect on the wire, for one call.
struct RingTiming {
  sim::Duration base_latency{};       // once per call
  sim::Duration intra_hop_latency{};  // per step, on a hop inside a node
  sim::Duration inter_hop_latency{};  // per step, on a hop between nodes
  double wire_factor = 1.0;           // wire bytes per payload byte (LL 2, LL128 128/120)
  // Payload bytes/s one connection of a channel can move: the protocol's GPU-side limit.
  sim::Bandwidth connection_cap = sim::kUnboundedBandwidth;
  int qps_per_connection = 1;  // NCCL_IB_QPS_PER_CONNECTION: messages round-robin over them
};

// The paths one message of a hop takes: one, or one per adaptive-routing lane. `queue_pair`
// tells ECMP's hash the flows of different channels and queue pairs apart.
std::vector<std::vector<sim::LinkId>> hop_paths(const System& system,
                                                const Communicator& comm,
                                                const RingHop& hop,
                                                std::uint64_t queue_pair);

class RingExecutor {
 public:
  RingExecutor(const System& system,
               sim::FlowNetwork& network,
               sim::Simulator& simulator,
               Communicator comm,
               RingPlan plan,
               RingLayout layout,
               RingTiming timing);
  ~RingExecutor();

  RingExecutor(const RingExecutor&) = delete;
  RingExecutor& operator=(const RingExecutor&) = delete;

  // Starts the run; `done` gets the time the last byte arrived. Call once.
  void start(Execution execution, std::function<void(sim::SimTime)> done);

  bool finished() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace railsim::models
