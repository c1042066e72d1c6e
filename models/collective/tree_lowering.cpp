// File: models/collective/tree_lowering.cpp
// A tree plan as a task DAG and as flow groups timed by the tree's recurrence (see the header).
#include "models/collective/tree_lowering.hpp"

#include "models/collective/connection_routes.hpp"
#include "models/collective/ring_layout.hpp"
#include "models/collective/slice_sharing.hpp"
#include "sim/index.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace railsim::models {
namespace {

using sim::at;

// Every edge of a channel in one order: each non-root rank's edge up, then down.
template <typename Visit>
void for_each_edge(const TreePlan& plan, int channel, Visit&& visit) {
  const RankTree& tree = plan.trees[at(channel)];
  for (int rank = 0; rank < plan.ranks(); ++rank) {
    if (rank != tree.root) {
      visit(rank, true);
      visit(rank, false);
    }
  }
}

// Per rank, for the edge up to its parent and the one down from it.
struct EdgeValues {
  std::vector<double> up;
  std::vector<double> down;

  explicit EdgeValues(int ranks) : up(at(ranks), 0.0), down(at(ranks), 0.0) {}

  double& of(int rank, bool is_up) { return is_up ? up[at(rank)] : down[at(rank)]; }
};

// The recurrence of tree_lowering.hpp for one channel, in seconds from its first send, with
// each edge's seconds per payload byte and delay.
double tree_channel_seconds(const TreePlan& plan,
                            int channel,
                            const EdgeValues& seconds_per_byte,
                            const EdgeValues& delay) {
  const RankTree& tree = plan.trees[at(channel)];
  std::vector<double> up(at(plan.ranks()), 0.0);  // end of each edge's latest chunk
  std::vector<double> down(at(plan.ranks()), 0.0);
  double held = 0.0;
  const auto reduced = [&](int rank) {
    double ready = 0.0;
    for (const int child : tree.children[at(rank)]) {
      ready = std::max(ready, up[at(child)] + delay.up[at(child)]);
    }
    return ready;
  };
  for (const sim::Bytes chunk : plan.loop_chunks(channel)) {
    const auto bytes = static_cast<double>(chunk.count);
    for (const int rank : tree.reduce_order) {
      if (rank != tree.root) {
        up[at(rank)] =
            std::max(up[at(rank)], reduced(rank)) + bytes * seconds_per_byte.up[at(rank)];
      }
    }
    const double root_ready = reduced(tree.root);
    for (auto it = tree.reduce_order.rbegin(); it != tree.reduce_order.rend(); ++it) {
      const int rank = *it;
      if (rank == tree.root) {
        continue;
      }
      const int parent = tree.parent[at(rank)];
      const double ready =
          parent == tree.root ? root_ready : down[at(parent)] + delay.down[at(parent)];
      down[at(rank)] = std::max(down[at(rank)], ready) + bytes * seconds_per_byte.down[at(rank)];
      held = std::max(held, down[at(rank)] + delay.down[at(rank)]);
    }
  }
  return held;
}

// The tree's edges, their routes and their hops, shared by both forms.
struct TreeEdges {
  const TreePlan& plan;
  const CollectiveTiming& timing;
  std::vector<std::vector<int>> nic_of;  // [node][local GPU]: its compute NIC (ring_layout.hpp)
  ConnectionRoutes routes;

  TreeEdges(const System& system, const TreePlan& p, const CollectiveTiming& t)
      : plan(p),
        timing(t),
        nic_of(comm_gpu_nics(system, p.comm)),
        routes(system, p.comm, at(p.channels()) * at(p.ranks()) * 2, t.qps()) {}

  static std::size_t key(const TreePlan& plan, int channel, int rank, bool up) {
    return (at(channel) * at(plan.ranks()) + at(rank)) * 2 + (up ? 1 : 0);
  }

  // The edge between `rank` and its parent, up or down.
  RingHop hop(int channel, int rank, bool up) const {
    const Communicator& comm = plan.comm;
    const int parent = plan.trees[at(channel)].parent[at(rank)];
    RingHop h;
    h.src = up ? rank : parent;
    h.dst = up ? parent : rank;
    h.inter_node = comm.node_of(rank) != comm.node_of(parent);
    // Heads talk to heads: the same GPU index, over its NIC on each node.
    h.send_nic = nic_of[at(comm.node_of(h.src))][at(comm.gpu_of(h.src))];
    h.recv_nic = nic_of[at(comm.node_of(h.dst))][at(comm.gpu_of(h.dst))];
    return h;
  }

  RouteSpan route(int channel, int rank, bool up, int qp) {
    return routes.route(key(plan, channel, rank, up), channel, hop(channel, rank, up), qp);
  }
};

// What the channels' timing needs, kept by the channel-times function.
struct TreeChannels {
  TreePlan plan;
  std::vector<EdgeValues> delay_s;  // per channel
  // Per channel, in for_each_edge order: payload B/s at an even share of its links, all sending.
  std::vector<std::vector<double>> even_rate;
  std::optional<SliceSharing> sweep;    // unless the tree is too large to share
  std::vector<std::size_t> first_edge;  // per channel and one past: its edges' sharing indices
  std::vector<std::vector<sim::Bytes>>
      chunks;  // per channel: TreePlan::loop_chunks, for slice sharing

  // Channel c's time by the recurrence, each edge at the groups' pace or, with `even`, at its
  // even share of its links where that is faster.
  double recurrence_seconds(int c, double group, bool even) const {
    EdgeValues seconds_per_byte(plan.ranks());
    std::size_t e = 0;
    for_each_edge(plan, c, [&](int rank, bool up) {
      const double rate = even ? std::max(group, even_rate[at(c)][e]) : group;
      ++e;
      seconds_per_byte.of(rank, up) = std::isfinite(rate) ? 1.0 / rate : 0.0;
    });
    return tree_channel_seconds(plan, c, seconds_per_byte, delay_s[at(c)]);
  }

  // Each channel's time from its first send, never less than its drain (nothing is delivered
  // before the last byte has left): by slice sharing with the groups' pace (the channel's
  // bytes over its drain time) as every edge's floor, unless that cannot matter (slice_sharing.hpp,
  // kSliceSharingTolerance) or the tree is too large to share; then by the recurrence.
  std::vector<sim::Duration> channel_times(const std::vector<sim::Duration>& drains) {
    const std::size_t channels = drains.size();
    std::vector<double> group_rate(channels);
    std::vector<double> seconds(channels);
    bool swept = false;
    for (std::size_t c = 0; c < channels; ++c) {
      const auto channel = static_cast<int>(c);
      const double drain_s = sim::to_seconds(drains[c]);
      group_rate[c] = drain_s > 0.0
                          ? static_cast<double>(plan.channel_bytes(channel).count) / drain_s
                          : std::numeric_limits<double>::infinity();
      // Slice sharing moves no edge slower than the groups' pace, so it lands between the drain
      // and the recurrence at that pace.
      swept = swept || (sweep && recurrence_seconds(channel, group_rate[c], false) >
                                     (1.0 + kSliceSharingTolerance) * drain_s);
    }
    if (!swept) {
      for (std::size_t c = 0; c < channels; ++c) {
        seconds[c] = recurrence_seconds(static_cast<int>(c), group_rate[c], true);
      }
    } else {
      std::vector<double> floor(sweep->connection_count());
      for (std::size_t c = 0; c < channels; ++c) {
        std::fill(floor.begin() + static_cast<std::ptrdiff_t>(first_edge[c]),
                  floor.begin() + static_cast<std::ptrdiff_t>(first_edge[c + 1]), group_rate[c]);
      }
      const std::vector<double> held =
          sweep->held_seconds(floor, [this](std::size_t i, std::int64_t t) {
            const auto c = static_cast<std::size_t>(
                std::upper_bound(first_edge.begin(), first_edge.end(), i) - first_edge.begin() - 1);
            return chunks[c][static_cast<std::size_t>(t)];
          });
      for (std::size_t c = 0; c < channels; ++c) {
        seconds[c] =
            *std::max_element(held.begin() + static_cast<std::ptrdiff_t>(first_edge[c]),
                              held.begin() + static_cast<std::ptrdiff_t>(first_edge[c + 1]));
      }
    }
    std::vector<sim::Duration> times(channels);
    for (std::size_t c = 0; c < channels; ++c) {
      times[c] = std::max(drains[c], sim::seconds(seconds[c]));
    }
    return times;
  }
};

// Slice sharing's connections of channel c (for_each_edge order, from index `first`): each edge's
// chunks, forwarding up what its children sent up, down what its parent sent down (at the
// root's children, what the root's children sent up: the root's reduce).
void add_swept_edges(const TreePlan& plan,
                     int c,
                     std::size_t first,
                     std::vector<SharingConnection>& edges) {
  const RankTree& tree = plan.trees[at(c)];
  std::vector<std::uint32_t> up_index(at(plan.ranks()));
  std::vector<std::uint32_t> down_index(at(plan.ranks()));
  std::size_t e = first;
  for_each_edge(plan, c, [&](int rank, bool up) {
    (up ? up_index : down_index)[at(rank)] = static_cast<std::uint32_t>(e++);
  });
  const auto ups_of_children = [&](int rank) {
    std::vector<std::uint32_t> inputs;
    for (const int child : tree.children[at(rank)]) {
      inputs.push_back(up_index[at(child)]);
    }
    return inputs;
  };
  const auto chunks = static_cast<std::int64_t>(plan.loop_chunks(c).size());
  e = first;
  for_each_edge(plan, c, [&](int rank, bool up) {
    SharingConnection& edge = edges[e++];
    edge.transfers = chunks;
    const int parent = tree.parent[at(rank)];
    if (up) {
      edge.inputs = ups_of_children(rank);
    } else if (parent == tree.root) {
      edge.inputs = ups_of_children(parent);
    } else {
      edge.inputs = {down_index[at(parent)]};
    }
  });
}

}  // namespace

TransferDag tree_dag(const System& system,
                     const TreePlan& plan,
                     const CollectiveTiming& timing,
                     bool traced) {
  TreeEdges edges(system, plan, timing);
  std::vector<TreeTransfer> transfers = tree_transfers(plan);
  TransferDag dag;
  dag.tasks.reserve(transfers.size());
  if (traced) {
    dag.senders.reserve(transfers.size());
    dag.names = {"up", "down"};
  }
  for (TreeTransfer& t : transfers) {
    const RouteSpan route = edges.route(t.channel, t.rank, t.up, t.loop % timing.qps());
    DagTask task =
        connection_task(route, t.bytes, edges.hop(t.channel, t.rank, t.up).inter_node, timing);
    task.depends_on = std::move(t.depends_on);
    task.after = t.after;
    dag.tasks.push_back(std::move(task));
    if (traced) {
      dag.senders.push_back({t.src, t.channel, t.dst, t.bytes.count, t.up ? 0U : 1U});
    }
  }
  dag.paths = edges.routes.take_paths();
  return dag;
}

GroupPipeline tree_pipeline(const System& system,
                            const sim::FlowNetwork& network,
                            TreePlan plan,
                            const CollectiveTiming& timing,
                            bool traced) {
  TreeEdges edges(system, plan, timing);
  TreeChannels tree;
  const bool swept = plan.transfer_count() <= kSliceSharingLimit;
  std::vector<SharingConnection> swept_edges;
  GroupPipeline pipeline;
  pipeline.channels.resize(at(plan.channels()));
  tree.first_edge.push_back(0);
  for (int c = 0; c < plan.channels(); ++c) {
    EdgeValues& delay = tree.delay_s.emplace_back(plan.ranks());
    std::vector<std::vector<std::uint32_t>> flat_paths;
    std::vector<TraceSender> senders;
    std::size_t subs = 1;
    for_each_edge(plan, c, [&](int rank, bool up) {
      const RingHop hop = edges.hop(c, rank, up);
      flat_paths.push_back(edges.routes.all_paths(TreeEdges::key(plan, c, rank, up), c, hop));
      subs = std::max(subs, flat_paths.back().size());
      SharingConnection swept_edge;
      swept_edge.cap = timing.connection_cap.bytes_per_s;
      sim::Duration longest{};
      for (int q = 0; q < (hop.inter_node ? timing.qps() : 1); ++q) {
        const auto lanes = edges.routes.paths(edges.route(c, rank, up, q));
        const sim::Duration latency = path_latency(network, lanes);
        longest = std::max(longest, latency);
        if (swept) {
          swept_edge.routes.push_back(
              {{lanes.begin(), lanes.end()},
               sim::to_seconds(timing.hop_latency(hop.inter_node) + latency)});
        }
      }
      delay.of(rank, up) = sim::to_seconds(timing.hop_latency(hop.inter_node) + longest);
      if (swept) {
        swept_edges.push_back(std::move(swept_edge));
      }
      if (traced) {
        senders.push_back({hop.src, c, hop.dst, plan.channel_bytes(c).count});
      }
    });
    if (swept) {
      add_swept_edges(plan, c, tree.first_edge.back(), swept_edges);
      tree.first_edge.push_back(swept_edges.size());
      tree.chunks.push_back(plan.loop_chunks(c));
    }
    // Sub-pipeline j takes path j mod (that edge's count) on each edge, so every path carries
    // an equal share, as ring channels split over queue pairs and lanes.
    const sim::Bytes wire = wire_bytes(plan.channel_bytes(c), timing.wire_factor);
    for (std::size_t j = 0; j < subs; ++j) {
      PipelineGroup group;
      group.cap = timing.flow_cap(subs);
      group.members.reserve(flat_paths.size());
      for (const std::vector<std::uint32_t>& flat : flat_paths) {
        group.members.push_back({flat[j % flat.size()], even_share(wire, subs, j)});
      }
      pipeline.channels[at(c)].push_back(std::move(group));
    }
    if (traced) {
      pipeline.senders.push_back(std::move(senders));
    }
  }
  pipeline.paths = edges.routes.take_paths();
  // As if every edge sent at once, up and down and at every level: a long pipeline's view.
  tree.even_rate =
      even_share_rates(network, pipeline, timing.wire_factor, timing.connection_cap, false);
  if (swept) {
    tree.sweep.emplace(network, std::move(swept_edges), timing.wire_factor);
  }
  tree.plan = std::move(plan);
  pipeline.channel_times = [tree =
                                std::move(tree)](const std::vector<sim::Duration>& drains) mutable {
    return tree.channel_times(drains);
  };
  return pipeline;
}

}  // namespace railsim::models
