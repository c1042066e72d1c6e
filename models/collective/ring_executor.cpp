// File: models/collective/ring_executor.cpp
// A ring plan as a task DAG and as flow groups timed by pipeline_time (see ring_executor.hpp).
#include "models/collective/ring_executor.hpp"

#include "models/collective/connection_routes.hpp"
#include "models/collective/pipeline_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace railsim::models {
namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// Plans with up to this many slice transfers time their pipelines slice by slice (a few
// nanoseconds each); longer ones use the closed form.
constexpr std::int64_t kRecurrenceLimit = 20'000'000;

std::size_t connection_key(const RingPlan& plan, int channel, int connection) {
  return at(channel) * at(plan.ranks) + at(connection);
}

// What the recurrence needs of each channel, kept by the channel-time function.
struct RingChannels {
  RingPlan plan;
  bool closed_form = false;
  std::vector<std::vector<sim::Duration>> delay;  // per channel, connection: hop + path latency
  std::vector<std::vector<double>> even_rate;     // per channel, connection: payload B/s
  std::vector<sim::Bytes> most;                   // per channel: the most one connection carries

  // The channel's time from its first send: the flow groups set the bottleneck's rate (with
  // whatever else shares its links), the other hops keep their even-share rate when that is
  // faster, and the pipeline's recurrence adds the fill and the stalls.
  sim::Duration channel_time(int c, sim::Duration drain) const {
    const double drain_s = sim::to_seconds(drain);
    const double group_rate = drain_s > 0.0 ? static_cast<double>(most[at(c)].count) / drain_s
                                            : std::numeric_limits<double>::infinity();
    std::vector<ConnectionPace> pace(delay[at(c)].size());
    for (std::size_t p = 0; p < pace.size(); ++p) {
      const double rate = std::max(group_rate, even_rate[at(c)][p]);
      pace[p].seconds_per_byte = std::isfinite(rate) ? 1.0 / rate : 0.0;
      pace[p].delay_s = sim::to_seconds(delay[at(c)][p]);
    }
    const double recurrence_s =
        closed_form ? pipeline_seconds_closed_form(plan, c, pace) : pipeline_seconds(plan, c, pace);
    // The channels of a chain are at different positions at any time, so while one waits on
    // a hop the others use its links: the links' drain time, not the stalls, bounds it.
    const double seconds = plan.op == CollectiveOp::kBroadcast
                               ? std::max(recurrence_s, drain_s + pace.back().delay_s)
                               : recurrence_s;
    // Nothing is delivered before the last byte has left.
    return std::max(drain, sim::seconds(seconds));
  }
};

}  // namespace

TransferDag ring_dag(const System& system,
                     const Communicator& comm,
                     const RingPlan& plan,
                     const RingLayout& layout,
                     const CollectiveTiming& timing,
                     bool traced) {
  ConnectionRoutes routes(system, comm, at(plan.channels()) * at(plan.ranks), timing.qps());
  const std::vector<Transfer> transfers = models::transfers(plan);
  TransferDag dag;
  dag.tasks.reserve(transfers.size());
  // sent[connection]: its messages so far, which round-robin over its queue pairs.
  std::vector<std::uint32_t> sent(at(plan.channels()) * at(plan.ranks), 0);
  for (const Transfer& x : transfers) {
    const std::size_t key = connection_key(plan, x.channel, x.connection);
    const RingHop& hop = layout.hops[at(x.channel)][at(x.connection)];
    const auto qp = static_cast<int>(sent[key]++ % static_cast<std::uint32_t>(timing.qps()));
    const RouteSpan route = routes.route(key, x.channel, hop, qp);
    DagTask task = connection_task(route, x.bytes, hop.inter_node, timing);
    if (x.depends_on) {
      task.depends_on.push_back(*x.depends_on);
    }
    task.after = x.after;
    dag.tasks.push_back(std::move(task));
  }
  dag.paths = routes.take_paths();
  if (traced) {
    dag.senders.reserve(transfers.size());
    for (const Transfer& x : transfers) {
      dag.senders.push_back(
          {x.src, x.channel, x.dst, x.bytes.count, static_cast<std::uint32_t>(x.step)});
    }
    for (int s = 0; s < plan.steps(); ++s) {
      dag.names.push_back(fmt::format("step {}", s));
    }
  }
  return dag;
}

GroupPipeline ring_pipeline(const System& system,
                            const sim::FlowNetwork& network,
                            const Communicator& comm,
                            RingPlan plan,
                            const RingLayout& layout,
                            const CollectiveTiming& timing,
                            bool traced) {
  const int channels = plan.channels();
  const int connections = plan.connections();
  ConnectionRoutes routes(system, comm, at(channels) * at(plan.ranks), timing.qps());
  RingChannels ring;
  ring.closed_form = plan.transfer_count() > kRecurrenceLimit;
  ring.delay.resize(at(channels));
  ring.most.resize(at(channels));
  GroupPipeline pipeline;
  pipeline.channels.resize(at(channels));
  for (int c = 0; c < channels; ++c) {
    // Every path of every hop, queue pairs first, lanes within: sub-pipeline j takes path
    // j mod (that hop's count) on each hop, so each path carries an equal share.
    std::vector<std::vector<std::uint32_t>> flat_paths(at(connections));
    std::size_t subs = 1;
    for (int p = 0; p < connections; ++p) {
      const RingHop& hop = layout.hops[at(c)][at(p)];
      flat_paths[at(p)] = routes.all_paths(connection_key(plan, c, p), c, hop);
      subs = std::max(subs, flat_paths[at(p)].size());
      sim::Duration delay{};
      for (int q = 0; q < (hop.inter_node ? timing.qps() : 1); ++q) {
        const RouteSpan route = routes.route(connection_key(plan, c, p), c, hop, q);
        delay = std::max(
            delay, timing.hop_latency(hop.inter_node) + path_latency(network, routes.paths(route)));
      }
      ring.delay[at(c)].push_back(delay);
    }
    const RingPipeline pipe = models::pipeline(plan, c);
    ring.most[at(c)] =
        *std::max_element(pipe.connection_bytes.begin(), pipe.connection_bytes.end());
    for (std::size_t j = 0; j < subs; ++j) {
      PipelineGroup group;
      group.cap = timing.flow_cap(subs);
      group.members.reserve(at(connections));
      for (int p = 0; p < connections; ++p) {
        const std::vector<std::uint32_t>& flat = flat_paths[at(p)];
        group.members.push_back(
            {flat[j % flat.size()],
             even_share(wire_bytes(pipe.connection_bytes[at(p)], timing.wire_factor), subs, j)});
      }
      pipeline.channels[at(c)].push_back(std::move(group));
    }
    if (traced) {
      std::vector<TraceSender>& senders = pipeline.senders.emplace_back();
      for (int p = 0; p < connections; ++p) {
        const RingHop& hop = layout.hops[at(c)][at(p)];
        senders.push_back({hop.src, c, hop.dst, pipe.connection_bytes[at(p)].count});
      }
    }
  }
  pipeline.paths = routes.take_paths();
  // Every connection of a ring sends from the first step on, so all of the collective's flows
  // share; a Broadcast chain fills from its first hop, so a hop shares links only with the
  // other channels' hops at the same position.
  ring.even_rate = even_share_rates(network, pipeline, timing.wire_factor, timing.connection_cap,
                                    plan.op == CollectiveOp::kBroadcast);
  ring.plan = std::move(plan);
  pipeline.channel_time = [ring = std::move(ring)](int c, sim::Duration drain) {
    return ring.channel_time(c, drain);
  };
  return pipeline;
}

}  // namespace railsim::models
