// File: models/collective/group_pipeline.cpp
// Channels as flow groups; each channel's time from its drain time by the algorithm's recurrence.
#include "models/collective/group_pipeline.hpp"

#include "sim/assert.hpp"

#include <algorithm>

namespace railsim::models {

struct GroupPipelineExecutor::Impl {
  sim::FlowNetwork& net;
  sim::Simulator& sim;
  GroupPipeline pipeline;
  ChannelTime channel_time;
  std::function<void(sim::SimTime)> done;
  bool started = false;
  bool finished = false;
  sim::SimTime begin;
  sim::SimTime last_end;
  std::vector<std::size_t> draining;  // per channel: members still draining
  std::size_t channels_left = 0;

  Impl(sim::FlowNetwork& n, sim::Simulator& s, GroupPipeline p, ChannelTime t)
      : net(n), sim(s), pipeline(std::move(p)), channel_time(std::move(t)) {}

  void run() {
    begin = sim.now();
    last_end = begin;
    const std::size_t count = pipeline.channels.size();
    draining.assign(count, 0);
    channels_left = count;
    if (count == 0) {
      finish();
      return;
    }
    for (std::size_t c = 0; c < count; ++c) {
      for (const PipelineGroup& g : pipeline.channels[c]) {
        draining[c] += g.members.size();
      }
    }
    for (std::size_t c = 0; c < count; ++c) {
      if (draining[c] == 0) {
        channel_drained(c);
        continue;
      }
      for (const PipelineGroup& g : pipeline.channels[c]) {
        const sim::GroupId group = net.create_group(1.0, g.cap);
        for (const DagFlow& member : g.members) {
          sim::FlowSpec flow;
          flow.path = pipeline.paths[member.path];
          flow.size = member.bytes;
          flow.group = group;
          flow.on_drained = [this, c](const sim::FlowRecord&) {
            if (--draining[c] == 0) {
              channel_drained(c);
            }
          };
          net.start_flow(std::move(flow));
        }
      }
    }
  }

  void channel_drained(std::size_t c) {
    const sim::Duration total = channel_time(static_cast<int>(c), sim.now() - begin);
    last_end = std::max(last_end, begin + total);
    if (--channels_left == 0) {
      // The channels' own clocks decide the end, which may lie past this instant.
      sim.schedule_at(std::max(last_end, sim.now()), [this] { finish(); });
    }
  }

  void finish() {
    finished = true;
    if (done) {
      done(last_end);
    }
  }
};

GroupPipelineExecutor::GroupPipelineExecutor(sim::FlowNetwork& network,
                                             sim::Simulator& simulator,
                                             GroupPipeline pipeline,
                                             ChannelTime channel_time)
    : impl_(std::make_unique<Impl>(
          network, simulator, std::move(pipeline), std::move(channel_time))) {}

GroupPipelineExecutor::~GroupPipelineExecutor() = default;

void GroupPipelineExecutor::start(sim::Duration delay, std::function<void(sim::SimTime)> done) {
  Impl& m = *impl_;
  RAILSIM_ASSERT(!m.started, "a pipeline runs once");
  m.started = true;
  m.done = std::move(done);
  m.sim.schedule_after(delay, [&m] { m.run(); });
}

bool GroupPipelineExecutor::finished() const { return impl_->finished; }

}  // namespace railsim::models
