// File: models/collective/group_pipeline.cpp
// Channels as flow groups; the channels' times from their drain times by the algorithm's timing.
#include "models/collective/group_pipeline.hpp"

#include "sim/assert.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <span>

namespace railsim::models {

std::vector<std::vector<double>> even_share_rates(const sim::FlowNetwork& network,
                                                  const GroupPipeline& pipeline,
                                                  double wire_factor,
                                                  sim::Bandwidth connection_cap,
                                                  bool positions_apart) {
  std::size_t positions = 1;
  for (const auto& groups : pipeline.channels) {
    for (const PipelineGroup& g : groups) {
      positions = std::max(positions, g.members.size());
    }
  }
  const std::size_t classes = positions_apart ? positions : 1;
  // sharing[link x classes + class]: the members on the link that can send at once.
  std::vector<std::uint32_t> sharing(network.link_count() * classes, 0);
  const auto slot = [&](sim::LinkId link, std::size_t p) {
    return link.index * classes + (positions_apart ? p : 0);
  };
  for (const auto& groups : pipeline.channels) {
    for (const PipelineGroup& g : groups) {
      for (std::size_t p = 0; p < g.members.size(); ++p) {
        for (const sim::LinkId link : pipeline.paths[g.members[p].path]) {
          ++sharing[slot(link, p)];
        }
      }
    }
  }
  std::vector<std::vector<double>> rates(pipeline.channels.size());
  for (std::size_t c = 0; c < rates.size(); ++c) {
    for (const PipelineGroup& g : pipeline.channels[c]) {
      rates[c].resize(std::max(rates[c].size(), g.members.size()), 0.0);
      for (std::size_t p = 0; p < g.members.size(); ++p) {
        double wire_rate = std::numeric_limits<double>::infinity();
        for (const sim::LinkId link : pipeline.paths[g.members[p].path]) {
          wire_rate =
              std::min(wire_rate, network.link(link).capacity.bytes_per_s / sharing[slot(link, p)]);
        }
        rates[c][p] += wire_rate / wire_factor;
      }
    }
    for (double& rate : rates[c]) {
      rate = std::min(rate, connection_cap.bytes_per_s);
    }
  }
  return rates;
}

struct GroupPipelineExecutor::Impl {
  sim::FlowNetwork& net;
  sim::Simulator& sim;
  GroupPipeline pipeline;
  CollectiveTrace* trace;
  std::function<void(sim::SimTime)> done;
  bool started = false;
  bool finished = false;
  sim::SimTime begin;
  sim::SimTime last_end;
  std::vector<std::size_t> draining;  // per channel: flows still draining
  std::vector<sim::Duration> drains;  // per channel, from the start
  std::size_t channels_left = 0;
  std::vector<std::uint32_t> levels;  // scratch of bundles(), by link: zero between calls

  Impl(sim::FlowNetwork& n, sim::Simulator& s, GroupPipeline p, CollectiveTrace* t)
      : net(n), sim(s), pipeline(std::move(p)), trace(t) {
    RAILSIM_ASSERT(pipeline.channel_times, "a pipeline has its channels' timing");
    RAILSIM_ASSERT(!trace || pipeline.senders.size() == pipeline.channels.size(),
                   "a traced pipeline names the senders of every channel");
  }

  void run() {
    begin = sim.now();
    last_end = begin;
    const std::size_t count = pipeline.channels.size();
    drains.assign(count, sim::Duration{});
    channels_left = count;
    if (count == 0) {
      finish();
      return;
    }
    // Every channel's flows are counted before any starts, so that no drain finds a count short.
    std::vector<std::vector<std::vector<sim::FlowSpec>>> flows(count);  // channel, group, flow
    draining.assign(count, 0);
    std::size_t total = 0;
    for (std::size_t c = 0; c < count; ++c) {
      for (PipelineGroup& g : pipeline.channels[c]) {
        draining[c] += flows[c].emplace_back(bundles(g)).size();
        g.members = {};
      }
      total += draining[c];
    }
    // The bundles hold every member's links from here on.
    pipeline.paths = {};
    levels = {};
    net.reserve_flows(total);
    for (std::size_t c = 0; c < count; ++c) {
      if (draining[c] == 0) {
        channel_drained(c);
        continue;
      }
      for (std::size_t k = 0; k < flows[c].size(); ++k) {
        const sim::GroupId group = net.create_group(1.0, pipeline.channels[c][k].cap);
        for (sim::FlowSpec& flow : flows[c][k]) {
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

  // A group's members as flows: members moving the same bytes over links no other member of the
  // bundle crosses are one flow over all their links. The rate variable crosses each link as
  // often as before and every bundle drains when its members would, so the rates and drain times
  // are the same; a channel of a 32,768-GPU run then starts a handful of flows, not 65,536.
  // Members go to the lowest level whose bundles hold none of their links (`levels` keeps, per
  // link, the next level free of it), so the bundling costs one pass over the members' links.
  std::vector<sim::FlowSpec> bundles(const PipelineGroup& g) {
    levels.resize(net.link_count(), 0);
    std::map<std::pair<std::int64_t, std::uint32_t>, std::size_t> index;  // (bytes, level)
    std::vector<sim::FlowSpec> flows;
    for (const DagFlow& member : g.members) {
      const std::span<const sim::LinkId> path = pipeline.paths[member.path];
      std::uint32_t level = 0;
      for (const sim::LinkId link : path) {
        level = std::max(level, levels[link.index]);
      }
      for (const sim::LinkId link : path) {
        levels[link.index] = level + 1;
      }
      const auto [at, added] = index.try_emplace({member.bytes.count, level}, flows.size());
      if (added) {
        flows.emplace_back().size = member.bytes;
      }
      std::vector<sim::LinkId>& links = flows[at->second].path;
      links.insert(links.end(), path.begin(), path.end());
    }
    for (const DagFlow& member : g.members) {
      for (const sim::LinkId link : pipeline.paths[member.path]) {
        levels[link.index] = 0;
      }
    }
    return flows;
  }

  void channel_drained(std::size_t c) {
    drains[c] = sim.now() - begin;
    if (--channels_left > 0) {
      return;
    }
    const std::vector<sim::Duration> times = pipeline.channel_times(drains);
    RAILSIM_ASSERT(times.size() == drains.size(), "a time per channel");
    for (std::size_t k = 0; k < times.size(); ++k) {
      last_end = std::max(last_end, begin + times[k]);
      if (trace) {
        for (const TraceSender& s : pipeline.senders[k]) {
          trace->send(s.rank, s.channel, s.peer, "pipelined", begin, begin + times[k], s.bytes);
        }
      }
    }
    // The channels' own clocks decide the end, which may lie past this instant.
    sim.schedule_at(std::max(last_end, sim.now()), [this] { finish(); });
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
                                             CollectiveTrace* trace)
    : impl_(std::make_unique<Impl>(network, simulator, std::move(pipeline), trace)) {}

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
