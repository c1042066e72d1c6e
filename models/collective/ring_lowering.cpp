// File: models/collective/ring_lowering.cpp
// A ring plan as a task DAG, and as flow groups with the ring's side of their timing (see
// ring_lowering.hpp).
#include "models/collective/ring_lowering.hpp"

#include "models/collective/channel_timing.hpp"
#include "models/collective/connection_routes.hpp"
#include "models/collective/pipeline_time.hpp"
#include "sim/index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace railsim::models {
namespace {

using sim::at;

std::size_t connection_key(const RingPlan& plan, int channel, int connection) {
  return at(channel) * at(plan.ranks) + at(connection);
}

// The ring's side of its channels' timing (channel_timing.hpp). Connection p of channel c is
// ring position p.
struct RingChannels final : ChannelModel {
  RingPlan plan;
  bool closed_form = false;  // more than kSliceSharingLimit transfers: no sharing, no recurrence
  bool streams = false;      // the protocol forwards slices as they arrive
  std::vector<std::vector<sim::Duration>> delay;  // per channel, connection: hop + path latency
  std::vector<std::vector<sim::Duration>> post;   // per channel, connection: after each step
  std::vector<std::vector<sim::Bytes>> pieces;    // per channel: RingPlan::loop_pieces, to share
  std::vector<std::size_t> shape;  // per channel: the first with its delays, posts and pieces

  RecurrenceMemo* memo = nullptr;  // answers kept across calls, or none

  std::size_t recurrence_shape(int c) const override { return shape[at(c)]; }

  // pipeline_time.hpp's recurrence, or its closed form for the longest rings; a memo's answer
  // where it holds one for the same inputs.
  double recurrence_seconds(int c, std::span<const double> seconds_per_byte) const override {
    const auto evaluate = [&] {
      std::vector<ConnectionPace> pace(seconds_per_byte.size());
      for (std::size_t p = 0; p < pace.size(); ++p) {
        pace[p].seconds_per_byte = seconds_per_byte[p];
        pace[p].delay_s = sim::to_seconds(delay[at(c)][p]);
        pace[p].post_s = sim::to_seconds(post[at(c)][p]);
      }
      return closed_form ? pipeline_seconds_closed_form(plan, c, pace, streams)
                         : pipeline_seconds(plan, c, pace, streams);
    };
    return memo ? memo->answer(recurrence_inputs(c, seconds_per_byte), evaluate) : evaluate();
  }

  // Every word evaluate() reads: what the plan's pieces of channel c and its pipeline follow
  // from (RingPlan::loop_pieces, pipeline), how it is evaluated, and each connection's pace.
  std::vector<std::uint64_t> recurrence_inputs(int c,
                                               std::span<const double> seconds_per_byte) const {
    const auto word = [](auto value) { return static_cast<std::uint64_t>(value); };
    std::vector<std::uint64_t> inputs{word(plan.op),
                                      word(plan.ranks),
                                      word(plan.size.count),
                                      word(plan.channels()),
                                      word(c),
                                      word(plan.chunking.chunk.count),
                                      word(plan.chunking.slices),
                                      word(closed_form),
                                      word(streams)};
    inputs.reserve(inputs.size() + 3 * seconds_per_byte.size());
    for (std::size_t p = 0; p < seconds_per_byte.size(); ++p) {
      inputs.push_back(std::bit_cast<std::uint64_t>(seconds_per_byte[p]));
      inputs.push_back(word(delay[at(c)][p].count()));
      inputs.push_back(word(post[at(c)][p].count()));
    }
    return inputs;
  }

  // Nothing is delivered before the last byte has left, nor before every step but the last of
  // the connection that posts longest has been posted, and a chain's last byte still crosses its
  // last hop after the links have drained.
  sim::Duration lower_bound(int c, sim::Duration drain) const override {
    const bool chain = is_ring_chain(plan.op) && !delay[at(c)].empty();
    const std::vector<sim::Duration>& posts = post[at(c)];
    const sim::Duration longest =
        posts.empty() ? sim::Duration{} : *std::max_element(posts.begin(), posts.end());
    const std::int64_t steps = plan.loops(c) * plan.active_steps() - 1;
    const sim::Duration sent = drain + longest * steps;
    return chain ? sent + delay[at(c)].back() : sent;
  }

  // In the order for_each_slice lists a connection's transfers: loop by loop, then step by step
  // where the connection sends, then slice by slice.
  sim::Bytes transfer_bytes(int c, int p, std::int64_t t) const override {
    const bool chain = is_ring_chain(plan.op);
    const int slices = plan.chunking.slices;
    const std::int64_t per_loop = std::int64_t{plan.active_steps()} * slices;
    const auto l = static_cast<std::size_t>(t / per_loop);
    const auto r = static_cast<int>(t % per_loop);
    const int s = chain ? p : r / slices;
    const std::size_t parts = chain ? 1 : at(plan.ranks);
    return slice_of(pieces[at(c)][l * parts + at(plan.piece_sent(p, s))], slices, r % slices);
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
    if (hop.inter_node && x.slice == plan.chunking.slices - 1) {
      task.post = timing.step_post;  // the step's last slice
    }
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
                            RecurrenceMemo* memo,
                            bool traced) {
  const int channels = plan.channels();
  const int connections = plan.connections();
  ConnectionRoutes routes(system, comm, at(channels) * at(plan.ranks), timing.qps());
  auto ring = std::make_unique<RingChannels>();
  const bool shared = plan.transfer_count() <= kSliceSharingLimit;
  std::vector<SharingConnection> sharing;
  std::vector<sim::Bytes> most(at(channels));
  ring->delay.resize(at(channels));
  ring->post.resize(at(channels));
  GroupPipeline pipeline;
  pipeline.channels.resize(at(channels));
  // The first channel of each shape, with its pieces.
  std::vector<std::pair<std::size_t, std::vector<sim::Bytes>>> shapes;
  for (int c = 0; c < channels; ++c) {
    const RingPipeline pipe = models::pipeline(plan, c);
    std::vector<std::vector<std::uint32_t>> flat_paths(at(connections));
    for (int p = 0; p < connections; ++p) {
      const RingHop& hop = layout.hops[at(c)][at(p)];
      const std::size_t key = connection_key(plan, c, p);
      flat_paths[at(p)] = routes.all_paths(key, c, hop);
      TimedConnection timed = timed_connection(routes, network, timing, key, c, hop, shared);
      ring->delay[at(c)].push_back(timed.delay);
      ring->post[at(c)].push_back(hop.inter_node ? timing.step_post : sim::Duration{});
      if (!shared) {
        continue;
      }
      SharingConnection& shared_hop = sharing.emplace_back(std::move(timed.sharing));
      shared_hop.transfers = std::int64_t{pipe.loops} * pipe.active_steps * plan.chunking.slices;
      if (hop.inter_node) {
        shared_hop.post_s = sim::to_seconds(timing.step_post);
        shared_hop.post_every = plan.chunking.slices;
      }
      if (!is_ring_chain(plan.op)) {
        // Position p forwards, at step s > 0, what position p - 1 sent at step s - 1.
        shared_hop.inputs = {static_cast<std::uint32_t>(at(c) * at(connections) +
                                                        at((p - 1 + connections) % connections))};
        shared_hop.offset = plan.chunking.slices;
        shared_hop.period = std::int64_t{pipe.steps} * plan.chunking.slices;
      } else if (p > 0) {
        // A chain's hop forwards every slice its predecessor sent.
        shared_hop.inputs = {static_cast<std::uint32_t>(at(c) * at(connections) + at(p - 1))};
      }
    }
    most[at(c)] = *std::max_element(pipe.connection_bytes.begin(), pipe.connection_bytes.end());
    pipeline.channels[at(c)] = connection_groups(flat_paths, pipe.connection_bytes, timing);
    if (traced) {
      std::vector<TraceSender>& senders = pipeline.senders.emplace_back();
      for (int p = 0; p < connections; ++p) {
        const RingHop& hop = layout.hops[at(c)][at(p)];
        senders.push_back({hop.src, c, hop.dst, pipe.connection_bytes[at(p)].count});
      }
    }
    std::vector<sim::Bytes> pieces = plan.loop_pieces(c);
    // Channels that cross the same hops' delays and posts with the same pieces time alike: on a
    // uniform fabric every channel is one recurrence.
    const auto same = std::find_if(shapes.begin(), shapes.end(), [&](const auto& shape) {
      const auto& [first, first_pieces] = shape;
      return ring->delay[first] == ring->delay[at(c)] && ring->post[first] == ring->post[at(c)] &&
             first_pieces == pieces;
    });
    if (same == shapes.end()) {
      ring->shape.push_back(at(c));
      shapes.emplace_back(at(c), pieces);
    } else {
      ring->shape.push_back(same->first);
    }
    if (shared) {
      ring->pieces.push_back(std::move(pieces));
    }
  }
  pipeline.paths = routes.take_paths();
  ring->closed_form = !shared;
  ring->streams = timing.streams;
  ring->memo = memo;
  // Every connection of a ring sends from the first step on, so all of the collective's flows
  // share; a Broadcast chain fills from its first hop, so a hop shares links only with the
  // other channels' hops at the same position.
  const bool chain = is_ring_chain(plan.op);
  ring->plan = std::move(plan);
  pipeline.channel_times =
      connection_channel_times(network, pipeline, timing, chain, std::move(ring), std::move(most),
                               shared ? std::optional(std::move(sharing)) : std::nullopt);
  return pipeline;
}

}  // namespace railsim::models
