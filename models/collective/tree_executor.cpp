// File: models/collective/tree_executor.cpp
// A tree plan as a task DAG and as flow groups timed by the tree's recurrence (see the header).
#include "models/collective/tree_executor.hpp"

#include "models/collective/connection_routes.hpp"
#include "models/collective/ring_layout.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace railsim::models {
namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

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

// When each edge of a channel sends: from its first chunk's start to its last chunk's end.
struct EdgeWindows {
  EdgeValues first;
  EdgeValues last;
};

// The recurrence of tree_executor.hpp for one channel, in seconds from its first send, with
// each edge's seconds per payload byte and delay; with `windows`, also when each edge sends.
double tree_channel_seconds(const TreePlan& plan,
                            int channel,
                            const EdgeValues& seconds_per_byte,
                            const EdgeValues& delay,
                            EdgeWindows* windows = nullptr) {
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
  bool first_chunk = true;
  // Edge (rank, up) sends a chunk from `start` for `seconds`.
  const auto sent = [&](int rank, bool is_up, double start, double seconds) {
    if (windows) {
      if (first_chunk) {
        windows->first.of(rank, is_up) = start;
      }
      windows->last.of(rank, is_up) = start + seconds;
    }
    return start + seconds;
  };
  for (const sim::Bytes chunk : plan.loop_chunks(channel)) {
    const auto bytes = static_cast<double>(chunk.count);
    for (const int rank : tree.reduce_order) {
      if (rank != tree.root) {
        up[at(rank)] = sent(rank, true, std::max(up[at(rank)], reduced(rank)),
                            bytes * seconds_per_byte.up[at(rank)]);
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
      down[at(rank)] = sent(rank, false, std::max(down[at(rank)], ready),
                            bytes * seconds_per_byte.down[at(rank)]);
      held = std::max(held, down[at(rank)] + delay.down[at(rank)]);
    }
    first_chunk = false;
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

// What the recurrence needs of each channel, kept by the channel-time function.
struct TreeChannels {
  TreePlan plan;
  std::vector<EdgeValues> delay_s;  // per channel
  // Per channel, in for_each_edge order: payload B/s at its share of its links.
  std::vector<std::vector<double>> rate;

  // Seconds per payload byte of each edge of channel c at `rates` (for_each_edge order), or
  // `floor_rate` where that is faster.
  EdgeValues paces(int c, const std::vector<double>& rates, double floor_rate) const {
    EdgeValues seconds_per_byte(plan.ranks());
    std::size_t e = 0;
    for_each_edge(plan, c, [&](int rank, bool up) {
      const double edge_rate = std::max(floor_rate, rates[e++]);
      seconds_per_byte.of(rank, up) = std::isfinite(edge_rate) ? 1.0 / edge_rate : 0.0;
    });
    return seconds_per_byte;
  }

  sim::Duration channel_time(int c, sim::Duration drain) const {
    const auto bytes = static_cast<double>(plan.channel_bytes(c).count);
    const double drain_s = sim::to_seconds(drain);
    const double group_rate =
        drain_s > 0.0 ? bytes / drain_s : std::numeric_limits<double>::infinity();
    const EdgeValues seconds_per_byte = paces(c, rate[at(c)], group_rate);
    // Nothing is delivered before the last byte has left.
    return std::max(drain,
                    sim::seconds(tree_channel_seconds(plan, c, seconds_per_byte, delay_s[at(c)])));
  }
};

// Refinements of the edges' paces: few, since each only moves the windows a little.
constexpr int kConcurrencyRounds = 8;

// The mean count of `windows` (from, to) open over each one of them, itself included: the
// integral of the open count over its window, over its length (1 for an empty window). One
// sweep over the windows' ends.
std::vector<double> mean_overlap(const std::vector<std::pair<double, double>>& windows) {
  struct End {
    double time;
    int delta;  // +1 opens, -1 closes
    std::size_t window;
  };

  std::vector<End> ends;
  ends.reserve(2 * windows.size());
  for (std::size_t w = 0; w < windows.size(); ++w) {
    ends.push_back({windows[w].first, +1, w});
    ends.push_back({windows[w].second, -1, w});
  }
  std::sort(ends.begin(), ends.end(), [](const End& a, const End& b) { return a.time < b.time; });
  std::vector<double> integral_at_open(windows.size(), 0.0);
  std::vector<double> overlap(windows.size(), 1.0);
  double integral = 0.0;  // of the open count, from the first end on
  double previous = ends.empty() ? 0.0 : ends.front().time;
  int open = 0;
  for (const End& e : ends) {
    integral += open * (e.time - previous);
    previous = e.time;
    open += e.delta;
    const auto [from, to] = windows[e.window];
    if (e.delta > 0) {
      integral_at_open[e.window] = integral;
    } else if (to > from) {
      overlap[e.window] = (integral - integral_at_open[e.window]) / (to - from);
    }
  }
  return overlap;
}

// The edges' paces when each shares its links evenly with the edges that send at the same time,
// not with all of them: a channel of few chunks has its edges send in waves, up level by level
// and down again, so that its upper edges share a link with the lower ones of other channels only
// part of the time. From the even share among all (every edge at once), each round times every
// channel's recurrence, takes when each edge sends, and shares each link by the mean count of
// edges sending on it over that window.
std::vector<std::vector<double>> concurrent_rates(const sim::FlowNetwork& network,
                                                  const GroupPipeline& pipeline,
                                                  const TreeChannels& tree,
                                                  const CollectiveTiming& timing) {
  const TreePlan& plan = tree.plan;

  // Every member flow of every channel, and on each link the ones that cross it.
  struct Member {
    std::size_t channel;
    std::size_t edge;
    const std::vector<sim::LinkId>* path;
  };

  std::vector<Member> members;
  for (std::size_t c = 0; c < pipeline.channels.size(); ++c) {
    for (const PipelineGroup& g : pipeline.channels[c]) {
      for (std::size_t e = 0; e < g.members.size(); ++e) {
        members.push_back({c, e, &pipeline.paths[g.members[e].path]});
      }
    }
  }
  std::vector<std::vector<std::size_t>> on_link(network.link_count());
  for (std::size_t m = 0; m < members.size(); ++m) {
    for (const sim::LinkId link : *members[m].path) {
      on_link[link.index].push_back(m);
    }
  }
  std::vector<std::vector<double>> rates = tree.rate;
  std::vector<std::vector<std::pair<double, double>>> windows(rates.size());
  for (int round = 0; round < kConcurrencyRounds; ++round) {
    for (int c = 0; c < plan.channels(); ++c) {
      EdgeValues seconds_per_byte = tree.paces(c, rates[at(c)], 0.0);
      EdgeWindows sends{EdgeValues(plan.ranks()), EdgeValues(plan.ranks())};
      tree_channel_seconds(plan, c, seconds_per_byte, tree.delay_s[at(c)], &sends);
      windows[at(c)].clear();
      for_each_edge(plan, c, [&](int rank, bool up) {
        windows[at(c)].emplace_back(sends.first.of(rank, up), sends.last.of(rank, up));
      });
    }
    // share[m]: the smallest wire B/s the member's links give it at their mean overlap.
    std::vector<double> share(members.size(), std::numeric_limits<double>::infinity());
    std::vector<std::pair<double, double>> link_windows;
    for (std::size_t l = 0; l < on_link.size(); ++l) {
      link_windows.clear();
      for (const std::size_t m : on_link[l]) {
        link_windows.push_back(windows[members[m].channel][members[m].edge]);
      }
      const std::vector<double> overlap = mean_overlap(link_windows);
      const double capacity =
          network.link(sim::LinkId{static_cast<std::uint32_t>(l)}).capacity.bytes_per_s;
      for (std::size_t i = 0; i < on_link[l].size(); ++i) {
        double& s = share[on_link[l][i]];
        s = std::min(s, capacity / overlap[i]);
      }
    }
    for (auto& channel : rates) {
      std::fill(channel.begin(), channel.end(), 0.0);
    }
    for (std::size_t m = 0; m < members.size(); ++m) {
      rates[members[m].channel][members[m].edge] += share[m] / timing.wire_factor;
    }
    for (auto& channel : rates) {
      for (double& rate : channel) {
        rate = std::min(rate, timing.connection_cap.bytes_per_s);
      }
    }
  }
  return rates;
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
  GroupPipeline pipeline;
  pipeline.channels.resize(at(plan.channels()));
  for (int c = 0; c < plan.channels(); ++c) {
    EdgeValues& delay = tree.delay_s.emplace_back(plan.ranks());
    std::vector<std::vector<std::uint32_t>> flat_paths;
    std::vector<TraceSender> senders;
    std::size_t subs = 1;
    for_each_edge(plan, c, [&](int rank, bool up) {
      const RingHop hop = edges.hop(c, rank, up);
      flat_paths.push_back(edges.routes.all_paths(TreeEdges::key(plan, c, rank, up), c, hop));
      subs = std::max(subs, flat_paths.back().size());
      sim::Duration longest{};
      for (int q = 0; q < (hop.inter_node ? timing.qps() : 1); ++q) {
        longest = std::max(longest,
                           path_latency(network, edges.routes.paths(edges.route(c, rank, up, q))));
      }
      delay.of(rank, up) = sim::to_seconds(timing.hop_latency(hop.inter_node) + longest);
      if (traced) {
        senders.push_back({hop.src, c, hop.dst, plan.channel_bytes(c).count});
      }
    });
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
  tree.plan = std::move(plan);
  // First as if every edge sent at once, up and down and at every level (a long pipeline),
  // then refined by when each sends.
  tree.rate = even_share_rates(network, pipeline, timing.wire_factor, timing.connection_cap, false);
  tree.rate = concurrent_rates(network, pipeline, tree, timing);
  pipeline.channel_time = [tree = std::move(tree)](int c, sim::Duration drain) {
    return tree.channel_time(c, drain);
  };
  return pipeline;
}

}  // namespace railsim::models
