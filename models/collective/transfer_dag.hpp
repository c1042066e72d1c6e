// File: models/collective/transfer_dag.hpp
// TransferDag and DagExecutor: a collective's chunk-accurate run as a DAG of tasks over paths of
// links, whatever algorithm produced it: a delivered transfer releases its dependants.
//
// A task is one or more flows started together: one chunk over one connection (split evenly
// over the paths its route offers), or an NVSwitch operation whose flows on several GPU ports
// move at one common rate (a flow group: the switch reduces or multicasts at the pace of its
// slowest port). A task starts once the task before it on its connection has drained (a
// connection sends one chunk at a time) and every task it depends on has been delivered and then
// held for that task's `hold`: NCCL's per-hop software latency, which the links do not carry.
// The run is done when every task has been delivered and held. A task's `post` keeps its
// connection from its next task for that long after it drains (a sender's per-message cost).
//
// A task that `streams` forwards its input as it arrives, as NCCL's LL and LL128 protocols do
// (every 8- or 128-byte line carries its own flag, so a receiver reads each line as it lands and
// passes it on, where Simple waits for a whole slice): it may start once each task it depends on
// has started and its first byte has crossed that task's path and been held, and it is delivered
// no sooner than each of those tasks' last byte, held and carried over its own path. So a chain
// of streaming hops costs one transfer plus every hop's latency, not a transfer per hop.
//
// Traced (collective_trace.hpp), each task is one span on its sender's track, from its first
// byte leaving to its last (for a task split over lanes: the earliest start to the latest
// drain). Untraced, the run keeps no trace state.
//
// Cost: O(tasks + flows + dependencies) to index, and per event only the finished flow's task
// and its dependants.
#pragma once

#include "models/collective/collective_trace.hpp"
#include "models/collective/path_table.hpp"
#include "sim/bandwidth.hpp"
#include "sim/bytes.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"
#include "sim/time.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace railsim::models {

// The wire bytes of `payload` under a protocol that sends `wire_factor` bytes per payload byte.
inline sim::Bytes wire_bytes(sim::Bytes payload, double wire_factor) {
  return sim::bytes(
      static_cast<std::int64_t>(std::ceil(static_cast<double>(payload.count) * wire_factor)));
}

// Share `index` of `total` cut into `parts` whole-byte shares, the first ones a byte larger.
inline sim::Bytes even_share(sim::Bytes total, std::size_t parts, std::size_t index) {
  const auto n = static_cast<std::int64_t>(parts);
  return sim::bytes(total.count / n + (static_cast<std::int64_t>(index) < total.count % n ? 1 : 0));
}

// 16 bytes: a 16,384-node NVLS Tree AllReduce holds millions.
struct DagFlow {
  std::uint32_t path = 0;  // index into TransferDag::paths
  // How many equal flows on this one path it stands for: it takes that many shares of each link
  // it crosses (sim::FlowSpec::weight), and its cap is that many flows' caps. Not in a group.
  // A small whole count (channels x queue pairs), which a float holds exactly.
  float weight = 1.0F;
  sim::Bytes bytes;  // on the wire
};

struct DagTask {
  std::vector<DagFlow> flows;                          // at least one
  bool grouped = false;                                // the flows move at one common rate
  sim::Bandwidth flow_cap = sim::kUnboundedBandwidth;  // per flow, or the group's
  sim::Duration hold{};  // from its delivery until its dependants may use the data
  bool streams = false;  // forwards its dependencies' data line by line (see above)
  sim::Duration post{};  // after it drains, its connection's next task waits this long
  std::vector<std::uint32_t> depends_on;
  std::optional<std::uint32_t> after;  // the previous task of its connection
};

struct TransferDag {
  PathTable paths;
  std::vector<DagTask> tasks;  // each after the tasks it depends on and its `after`
  // For a traced run only (else empty): who sends each task, and the names `what` indexes.
  std::vector<TraceSender> senders;
  std::vector<std::string> names;
};

class DagExecutor {
 public:
  // With a `trace`, `dag` has a sender per task; the trace must outlive the run.
  DagExecutor(sim::FlowNetwork& network,
              sim::Simulator& simulator,
              TransferDag dag,
              CollectiveTrace* trace = nullptr);
  ~DagExecutor();

  DagExecutor(const DagExecutor&) = delete;
  DagExecutor& operator=(const DagExecutor&) = delete;

  // Starts the tasks `delay` from now (NCCL's base latency); `done` gets the time the last
  // task was delivered and held (now + delay for an empty DAG). Call once.
  void start(sim::Duration delay, std::function<void(sim::SimTime)> done);

  bool finished() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace railsim::models
