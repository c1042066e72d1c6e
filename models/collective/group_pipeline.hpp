// File: models/collective/group_pipeline.hpp
// GroupPipelineExecutor: a collective's pipelined run, whatever algorithm produced it
// (docs/architecture.md, the flow engine). Each channel is flow groups whose members are its
// connections (or the GPU ports an NVSwitch operation crosses), each moving everything it carries
// in the plan at the group's common rate: the pace of the channel's slowest hop. When every
// channel's members have drained, the algorithm's own timing turns those drain times into the
// channels' times (fill, stalls, hop latencies), all channels at once, since their slices share
// links; the run is done when every channel is. Cost: one flow per bundle of a group's members
// that move the same bytes over distinct links (the same rates as a flow per member), plus that
// timing.
//
// Traced (collective_trace.hpp), each connection of a channel is one span "pipelined" on its
// sender's track, from the channel's start to its end.
#pragma once

#include "models/collective/collective_trace.hpp"
#include "models/collective/path_table.hpp"
#include "models/collective/transfer_dag.hpp"
#include "sim/bandwidth.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"
#include "sim/time.hpp"

#include <functional>
#include <memory>
#include <vector>

namespace railsim::models {

struct PipelineGroup {
  std::vector<DagFlow> members;
  sim::Bandwidth cap = sim::kUnboundedBandwidth;  // on the group's common rate
};

// The time of every channel from its start until its last byte is held, given how long each
// channel's members took to drain (one entry per channel, in order).
using ChannelTimes =
    std::function<std::vector<sim::Duration>(const std::vector<sim::Duration>& drains)>;

struct GroupPipeline {
  PathTable paths;
  std::vector<std::vector<PipelineGroup>> channels;  // per channel: its groups
  ChannelTimes channel_times;
  // For a traced run only (else empty): per channel, one sender per connection.
  std::vector<std::vector<TraceSender>> senders;
};

// What each member position of each channel moves, in payload B/s, while it sends with its
// links shared evenly: the pace of the hops that are not a pipeline's bottleneck, which run
// ahead while it fills. Every group of a channel lists its members in one order of positions
// (its connections), and a position's rate sums its groups' members. A link is shared among all
// the members that cross it, or, with `positions_apart` (a chain, which fills from its first
// hop), only among those at the same position. Each rate is at most `connection_cap`.
std::vector<std::vector<double>> even_share_rates(const sim::FlowNetwork& network,
                                                  const GroupPipeline& pipeline,
                                                  double wire_factor,
                                                  sim::Bandwidth connection_cap,
                                                  bool positions_apart);

class GroupPipelineExecutor {
 public:
  // With a `trace`, `pipeline` has its senders; the trace must outlive the run.
  GroupPipelineExecutor(sim::FlowNetwork& network,
                        sim::Simulator& simulator,
                        GroupPipeline pipeline,
                        CollectiveTrace* trace = nullptr);
  ~GroupPipelineExecutor();

  GroupPipelineExecutor(const GroupPipelineExecutor&) = delete;
  GroupPipelineExecutor& operator=(const GroupPipelineExecutor&) = delete;

  // Starts every channel `delay` from now (NCCL's base latency); `done` gets the time the last
  // channel finished (now + delay with no channel). Call once.
  void start(sim::Duration delay, std::function<void(sim::SimTime)> done);

  bool finished() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace railsim::models
