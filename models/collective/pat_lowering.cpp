// File: models/collective/pat_lowering.cpp
// A PAT plan as a task DAG, and as flow groups with PAT's side of their timing (see the header).
#include "models/collective/pat_lowering.hpp"

#include "models/collective/channel_timing.hpp"
#include "models/collective/connection_routes.hpp"
#include "models/collective/ring_layout.hpp"
#include "sim/index.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <span>

namespace railsim::models {
namespace {

using sim::at;

// A channel's connections, rank by rank, each rank's steps in order.
std::size_t connection_of(const PatPlan& plan, int rank, int step) {
  return at(rank) * at(plan.steps()) + at(step);
}

// The recurrence of pat_lowering.hpp for one channel, in seconds from its first send, with each
// connection's seconds per payload byte and delay.
double pat_channel_seconds(const PatPlan& plan,
                           int channel,
                           std::span<const double> seconds_per_byte,
                           std::span<const double> delay) {
  const std::size_t connections = at(plan.ranks()) * at(plan.steps());
  std::vector<double> sent(connections, 0.0);
  std::vector<double> held(connections, 0.0);
  double done = 0.0;
  for (const sim::Bytes portion : plan.loop_portions(channel)) {
    for (int s = 0; s < plan.steps(); ++s) {
      const double bytes = static_cast<double>(portion.count) * plan.portions(s);
      for (int r = 0; r < plan.ranks(); ++r) {
        const std::size_t k = connection_of(plan, r, s);
        double start = sent[k];
        for (int e = 0; e < s; ++e) {
          if (plan.feeds(e, s)) {
            start = std::max(start, held[connection_of(plan, plan.sender_to(r, e), e)]);
          }
        }
        sent[k] = start + bytes * seconds_per_byte[k];
        held[k] = sent[k] + delay[k];
        done = std::max(done, held[k]);
      }
    }
  }
  return done;
}

// The plan's connections, their routes and their hops, shared by both forms.
struct PatConnections {
  const PatPlan& plan;
  CommNics nic_of;  // nic_affinity.hpp
  ConnectionRoutes routes;

  PatConnections(const System& system, const PatPlan& p, const CollectiveTiming& timing)
      : plan(p),
        nic_of(system, p.comm),
        routes(system, p.comm, at(p.channels()) * at(p.ranks()) * at(p.steps()), timing.qps()) {}

  std::size_t key(int channel, int rank, int step) const {
    return at(channel) * at(plan.ranks()) * at(plan.steps()) + connection_of(plan, rank, step);
  }

  // A rank's message to its peer at `step` on `channel`, each over its own GPU's NIC: with one
  // GPU a node, channel c is that GPU's round c.
  RingHop hop(int channel, int rank, int step) const {
    const Communicator& comm = plan.comm;
    RingHop h;
    h.src = rank;
    h.dst = plan.peer(rank, step);
    h.inter_node = comm.node_of(h.src) != comm.node_of(h.dst);
    const int round = channel / comm.gpus_per_node;
    h.send_nic = nic_of.nic(comm.node_of(h.src), comm.gpu_of(h.src), round);
    h.recv_nic = nic_of.nic(comm.node_of(h.dst), comm.gpu_of(h.dst), round);
    return h;
  }
};

// What the receiver spends on the portions of a message at `step`, beyond its hop latency.
sim::Duration handling(const PatPlan& plan, const PatTiming& timing, int step) {
  return timing.per_portion * plan.portions(step);
}

// PAT's side of its channels' timing (channel_timing.hpp).
struct PatChannels final : ChannelModel {
  PatPlan plan;
  std::vector<std::vector<double>> delay_s;       // per channel and connection
  std::vector<std::vector<sim::Bytes>> portions;  // per channel: PatPlan::loop_portions

  double recurrence_seconds(int c, std::span<const double> seconds_per_byte) const override {
    return pat_channel_seconds(plan, c, seconds_per_byte, delay_s[at(c)]);
  }

  // Nothing is delivered before the last byte has left.
  sim::Duration lower_bound(int /*channel*/, sim::Duration drain) const override { return drain; }

  // Each connection sends its step's portions of every loop in order.
  sim::Bytes transfer_bytes(int c, int connection, std::int64_t t) const override {
    return portions[at(c)][static_cast<std::size_t>(t)] * plan.portions(connection % plan.steps());
  }
};

}  // namespace

TransferDag pat_dag(const System& system,
                    const PatPlan& plan,
                    const PatTiming& timing,
                    bool traced) {
  PatConnections connections(system, plan, timing.network);
  std::vector<PatTransfer> transfers = pat_transfers(plan);
  TransferDag dag;
  dag.tasks.reserve(transfers.size());
  if (traced) {
    dag.senders.reserve(transfers.size());
    dag.names = {"pat"};
  }
  for (PatTransfer& t : transfers) {
    const RingHop hop = connections.hop(t.channel, t.rank, t.step);
    const RouteSpan route = connections.routes.route(connections.key(t.channel, t.rank, t.step),
                                                     t.channel, hop, t.loop % timing.network.qps());
    DagTask task = connection_task(route, t.bytes, hop.inter_node, timing.network);
    task.hold += handling(plan, timing, t.step);
    task.depends_on = std::move(t.depends_on);
    task.after = t.after;
    dag.tasks.push_back(std::move(task));
    if (traced) {
      dag.senders.push_back({t.rank, t.channel, t.dst, t.bytes.count, 0U});
    }
  }
  dag.paths = connections.routes.take_paths();
  return dag;
}

GroupPipeline pat_pipeline(const System& system,
                           const sim::FlowNetwork& network,
                           PatPlan plan,
                           const PatTiming& timing,
                           bool traced) {
  PatConnections connections(system, plan, timing.network);
  auto pat = std::make_unique<PatChannels>();
  const bool shared = plan.transfer_count() <= kSliceSharingLimit;
  std::vector<SharingConnection> sharing;
  std::vector<sim::Bytes> most;
  GroupPipeline pipeline;
  pipeline.channels.resize(at(plan.channels()));
  for (int c = 0; c < plan.channels(); ++c) {
    const std::vector<sim::Bytes> loops = plan.loop_portions(c);
    sim::Bytes portion_total;
    for (const sim::Bytes portion : loops) {
      portion_total += portion;
    }
    std::vector<double>& delay = pat->delay_s.emplace_back();
    const std::size_t first = sharing.size();
    std::vector<std::vector<std::uint32_t>> flat_paths;
    std::vector<sim::Bytes> carried;
    std::vector<TraceSender> senders;
    for (int r = 0; r < plan.ranks(); ++r) {
      for (int s = 0; s < plan.steps(); ++s) {
        const RingHop hop = connections.hop(c, r, s);
        const std::size_t key = connections.key(c, r, s);
        flat_paths.push_back(connections.routes.all_paths(key, c, hop));
        carried.push_back(portion_total * plan.portions(s));
        TimedConnection timed =
            timed_connection(connections.routes, network, timing.network, key, c, hop, shared);
        const sim::Duration extra = handling(plan, timing, s);
        delay.push_back(sim::to_seconds(timed.delay + extra));
        if (shared) {
          for (SharingRoute& route : timed.sharing.routes) {
            route.delay_s += sim::to_seconds(extra);
          }
          timed.sharing.transfers = static_cast<std::int64_t>(loops.size());
          for (int e = 0; e < s; ++e) {
            if (plan.feeds(e, s)) {
              timed.sharing.inputs.push_back(
                  static_cast<std::uint32_t>(first + connection_of(plan, plan.sender_to(r, e), e)));
            }
          }
          sharing.push_back(std::move(timed.sharing));
        }
        if (traced) {
          senders.push_back({r, c, hop.dst, carried.back().count});
        }
      }
    }
    if (shared) {
      pat->portions.push_back(loops);
    }
    // The channel's floor (channel_timing.hpp) is one pace for all its connections, which here
    // carry unequal bytes at the flow groups' common rate: each moved at least the lightest
    // one's bytes over the drain, and no more than its own, so the lightest sets the floor.
    most.push_back(*std::min_element(carried.begin(), carried.end()));
    pipeline.channels[at(c)] = connection_groups(flat_paths, carried, timing.network);
    if (traced) {
      pipeline.senders.push_back(std::move(senders));
    }
  }
  pipeline.paths = connections.routes.take_paths();
  pat->plan = std::move(plan);
  // Even shares as if every connection sent at once: a long pipeline's view.
  pipeline.channel_times = connection_channel_times(
      network, pipeline, timing.network, false, std::move(pat), std::move(most),
      shared ? std::optional(std::move(sharing)) : std::nullopt);
  return pipeline;
}

}  // namespace railsim::models
