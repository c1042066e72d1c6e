// File: models/collective/ring_lowering.cpp
// A ring plan as a task DAG and as flow groups timed by pipeline_time (see ring_lowering.hpp).
#include "models/collective/ring_lowering.hpp"

#include "models/collective/connection_routes.hpp"
#include "models/collective/pipeline_time.hpp"
#include "models/collective/slice_sharing.hpp"
#include "sim/index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace railsim::models {
namespace {

using sim::at;

std::size_t connection_key(const RingPlan& plan, int channel, int connection) {
  return at(channel) * at(plan.ranks) + at(connection);
}

// What the channels' timing needs, kept by the channel-times function.
struct RingChannels {
  RingPlan plan;
  bool closed_form = false;  // more than kSliceSharingLimit transfers: no sharing, no recurrence
  std::vector<std::vector<sim::Duration>> delay;  // per channel, connection: hop + path latency
  std::vector<sim::Bytes> most;                   // per channel: the most one connection carries
  std::vector<std::vector<double>> even_rate;  // per channel, connection: payload B/s, all sending
  std::optional<SliceSharing> sweep;           // unless closed_form
  std::vector<std::vector<sim::Bytes>>
      pieces;  // per channel: RingPlan::loop_pieces, for slice sharing

  // The flow groups' pace of channel c: what its busiest connection moves over its drain time.
  double group_rate(int c, sim::Duration drain) const {
    const double drain_s = sim::to_seconds(drain);
    return drain_s > 0.0 ? static_cast<double>(most[at(c)].count) / drain_s
                         : std::numeric_limits<double>::infinity();
  }

  // Channel c's time by the per-connection recurrence (or its closed form), each connection at
  // the groups' pace or, with `even`, at its even share of its links where that is faster.
  double recurrence_seconds(int c, double group, bool even) const {
    std::vector<ConnectionPace> pace(delay[at(c)].size());
    for (std::size_t p = 0; p < pace.size(); ++p) {
      const double rate = even ? std::max(group, even_rate[at(c)][p]) : group;
      pace[p].seconds_per_byte = std::isfinite(rate) ? 1.0 / rate : 0.0;
      pace[p].delay_s = sim::to_seconds(delay[at(c)][p]);
    }
    return closed_form ? pipeline_seconds_closed_form(plan, c, pace)
                       : pipeline_seconds(plan, c, pace);
  }

  // Nothing is delivered before the last byte has left, and a chain's last byte still crosses
  // its last hop after the links have drained.
  sim::Duration lower_bound(int c, sim::Duration drain) const {
    const bool chain = plan.op == CollectiveOp::kBroadcast && !delay[at(c)].empty();
    return chain ? drain + delay[at(c)].back() : drain;
  }

  // Payload bytes of transfer t of connection i (channel i / connections, position i mod
  // connections), in the order for_each_slice lists a connection's transfers.
  sim::Bytes transfer_bytes(std::size_t i, std::int64_t t) const {
    const auto connections = at(plan.connections());
    const int c = static_cast<int>(i / connections);
    const int p = static_cast<int>(i % connections);
    const bool chain = plan.op == CollectiveOp::kBroadcast;
    const int slices = plan.chunking.slices;
    const std::int64_t per_loop = std::int64_t{plan.active_steps()} * slices;
    const auto l = static_cast<std::size_t>(t / per_loop);
    const auto r = static_cast<int>(t % per_loop);
    const int s = chain ? p : r / slices;
    const int n = plan.ranks;
    const int piece = chain ? 0 : ((p - s) % n + n) % n;
    const std::size_t parts = chain ? 1 : at(n);
    return slice_of(pieces[at(c)][l * parts + at(piece)], slices, r % slices);
  }

  // Each channel's time from its first send, at least its lower bound: by slice sharing with
  // the groups' pace as every connection's floor, unless that cannot matter (slice_sharing.hpp,
  // kSliceSharingTolerance) or the ring is too long to share; then by the per-connection
  // recurrence.
  std::vector<sim::Duration> channel_times(const std::vector<sim::Duration>& drains) {
    const std::size_t channels = drains.size();
    std::vector<double> seconds(channels, 0.0);
    bool swept = false;
    for (std::size_t c = 0; sweep && !swept && c < channels; ++c) {
      // Slice sharing moves no connection slower than the groups' pace, so it lands between the
      // lower bound and the recurrence at that pace.
      const auto channel = static_cast<int>(c);
      swept = recurrence_seconds(channel, group_rate(channel, drains[c]), false) >
              (1.0 + kSliceSharingTolerance) * sim::to_seconds(lower_bound(channel, drains[c]));
    }
    if (!swept) {
      for (std::size_t c = 0; c < channels; ++c) {
        const auto channel = static_cast<int>(c);
        seconds[c] = recurrence_seconds(channel, group_rate(channel, drains[c]), true);
      }
    } else {
      const auto connections = at(plan.connections());
      std::vector<double> floor(sweep->connection_count());
      for (std::size_t i = 0; i < floor.size(); ++i) {
        floor[i] = group_rate(static_cast<int>(i / connections), drains[i / connections]);
      }
      const std::vector<double> held = sweep->held_seconds(
          floor, [this](std::size_t i, std::int64_t t) { return transfer_bytes(i, t); });
      for (std::size_t i = 0; i < held.size(); ++i) {
        seconds[i / connections] = std::max(seconds[i / connections], held[i]);
      }
    }
    std::vector<sim::Duration> times(channels);
    for (std::size_t c = 0; c < channels; ++c) {
      times[c] = std::max(lower_bound(static_cast<int>(c), drains[c]), sim::seconds(seconds[c]));
    }
    return times;
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
  const bool swept = plan.transfer_count() <= kSliceSharingLimit;
  std::vector<SharingConnection> sweep;
  ring.delay.resize(at(channels));
  ring.most.resize(at(channels));
  GroupPipeline pipeline;
  pipeline.channels.resize(at(channels));
  for (int c = 0; c < channels; ++c) {
    const RingPipeline pipe = models::pipeline(plan, c);
    // Every path of every hop, queue pairs first, lanes within: sub-pipeline j takes path
    // j mod (that hop's count) on each hop, so each path carries an equal share.
    std::vector<std::vector<std::uint32_t>> flat_paths(at(connections));
    std::size_t subs = 1;
    for (int p = 0; p < connections; ++p) {
      const RingHop& hop = layout.hops[at(c)][at(p)];
      flat_paths[at(p)] = routes.all_paths(connection_key(plan, c, p), c, hop);
      subs = std::max(subs, flat_paths[at(p)].size());
      SharingConnection swept_hop;
      sim::Duration delay{};
      for (int q = 0; q < (hop.inter_node ? timing.qps() : 1); ++q) {
        const auto lanes = routes.paths(routes.route(connection_key(plan, c, p), c, hop, q));
        const sim::Duration route_delay =
            timing.hop_latency(hop.inter_node) + path_latency(network, lanes);
        delay = std::max(delay, route_delay);
        if (swept) {
          swept_hop.routes.push_back({{lanes.begin(), lanes.end()}, sim::to_seconds(route_delay)});
        }
      }
      ring.delay[at(c)].push_back(delay);
      if (swept) {
        swept_hop.transfers = std::int64_t{pipe.loops} * pipe.active_steps * plan.chunking.slices;
        swept_hop.cap = timing.connection_cap.bytes_per_s;
        if (plan.op != CollectiveOp::kBroadcast) {
          // Position p forwards, at step s > 0, what position p - 1 sent at step s - 1.
          swept_hop.inputs = {static_cast<std::uint32_t>(at(c) * at(connections) +
                                                         at((p - 1 + connections) % connections))};
          swept_hop.offset = plan.chunking.slices;
          swept_hop.period = std::int64_t{pipe.steps} * plan.chunking.slices;
        } else if (p > 0) {
          // A chain's hop forwards every slice its predecessor sent.
          swept_hop.inputs = {static_cast<std::uint32_t>(at(c) * at(connections) + at(p - 1))};
        }
        sweep.push_back(std::move(swept_hop));
      }
    }
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
    if (swept) {
      ring.pieces.push_back(plan.loop_pieces(c));
    }
  }
  pipeline.paths = routes.take_paths();
  // Every connection of a ring sends from the first step on, so all of the collective's flows
  // share; a Broadcast chain fills from its first hop, so a hop shares links only with the
  // other channels' hops at the same position.
  ring.even_rate = even_share_rates(network, pipeline, timing.wire_factor, timing.connection_cap,
                                    plan.op == CollectiveOp::kBroadcast);
  ring.closed_form = !swept;
  if (swept) {
    ring.sweep.emplace(network, std::move(sweep), timing.wire_factor);
  }
  ring.plan = std::move(plan);
  pipeline.channel_times = [ring =
                                std::move(ring)](const std::vector<sim::Duration>& drains) mutable {
    return ring.channel_times(drains);
  };
  return pipeline;
}

}  // namespace railsim::models
