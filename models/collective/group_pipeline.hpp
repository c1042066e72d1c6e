// File: models/collective/group_pipeline.hpp
// GroupPipelineExecutor: a collective's pipelined run, whatever algorithm produced it (design.md
// §4, "Flow groups"). Each channel is flow groups whose members are its connections (or the GPU
// ports an NVSwitch operation crosses), each moving everything it carries in the plan at the
// group's common rate: the pace of the channel's slowest hop. When a channel's members have all
// drained, the algorithm's own recurrence turns that drain time into the channel's time (fill,
// stalls, hop latencies), and the run is done when every channel is. Cost: one flow per member,
// whatever the size.
#pragma once

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

struct GroupPipeline {
  std::vector<std::vector<sim::LinkId>> paths;
  std::vector<std::vector<PipelineGroup>> channels;  // per channel: its groups
};

// The time of channel c from its start until its last byte is held, given how long its
// members took to drain.
using ChannelTime = std::function<sim::Duration(int channel, sim::Duration drain)>;

class GroupPipelineExecutor {
 public:
  GroupPipelineExecutor(sim::FlowNetwork& network,
                        sim::Simulator& simulator,
                        GroupPipeline pipeline,
                        ChannelTime channel_time);
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
