// File: models/collective/tree_lowering.cpp
// A tree plan as a task DAG, and as flow groups with the tree's side of their timing (see the
// header).
#include "models/collective/tree_lowering.hpp"

#include "models/collective/channel_timing.hpp"
#include "models/collective/connection_routes.hpp"
#include "models/collective/ring_layout.hpp"
#include "models/collective/tree_time.hpp"
#include "sim/index.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <span>

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

// The tree's edges, their routes and their hops, shared by both forms.
struct TreeEdges {
  const TreePlan& plan;
  const CollectiveTiming& timing;
  CommNics nic_of;  // nic_affinity.hpp
  ConnectionRoutes routes;

  TreeEdges(const System& system, const TreePlan& p, const CollectiveTiming& t)
      : plan(p),
        timing(t),
        nic_of(system, p.comm),
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
    // Heads talk to heads: the same GPU index, over its NIC on each node; channels c and c + G
    // (the same head) use a GPU's NICs in turn.
    const int round = channel / comm.gpus_per_node;
    h.send_nic = nic_of.nic(comm.node_of(h.src), comm.gpu_of(h.src), round);
    h.recv_nic = nic_of.nic(comm.node_of(h.dst), comm.gpu_of(h.dst), round);
    return h;
  }

  RouteSpan route(int channel, int rank, bool up, int qp) {
    return routes.route(key(plan, channel, rank, up), channel, hop(channel, rank, up), qp);
  }
};

// The tree's side of its channels' timing (channel_timing.hpp). A channel's connections are its
// edges in for_each_edge order.
struct TreeChannels final : ChannelModel {
  TreePlan plan;
  bool streams = false;                         // the protocol forwards chunks as they arrive
  std::vector<EdgeValues> delay_s;              // per channel
  std::vector<std::vector<sim::Bytes>> chunks;  // per channel: TreePlan::loop_chunks, to share

  double recurrence_seconds(int c, std::span<const double> seconds_per_byte) const override {
    EdgeValues per_edge(plan.ranks());
    std::size_t e = 0;
    for_each_edge(plan, c,
                  [&](int rank, bool up) { per_edge.of(rank, up) = seconds_per_byte[e++]; });
    return tree_channel_seconds(plan.trees[at(c)], tree_chunks(plan, c), per_edge, delay_s[at(c)],
                                streams);
  }

  // Nothing is delivered before the last byte has left.
  sim::Duration lower_bound(int /*channel*/, sim::Duration drain) const override { return drain; }

  // Every edge sends the channel's chunks in order.
  sim::Bytes transfer_bytes(int c, int /*edge*/, std::int64_t t) const override {
    return chunks[at(c)][static_cast<std::size_t>(t)];
  }
};

// Slice sharing's connections of channel c (for_each_edge order, from index `first`): each edge's
// chunks, forwarding up what its children sent up, down what its parent sent down (at the
// root's children, what the root's children sent up: the root's reduce).
void add_shared_edges(const TreePlan& plan,
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
  auto tree = std::make_unique<TreeChannels>();
  const bool shared = plan.transfer_count() <= kSliceSharingLimit;
  std::vector<SharingConnection> sharing;
  std::vector<sim::Bytes> most;  // every edge carries the channel's bytes
  GroupPipeline pipeline;
  pipeline.channels.resize(at(plan.channels()));
  for (int c = 0; c < plan.channels(); ++c) {
    EdgeValues& delay = tree->delay_s.emplace_back(plan.ranks());
    const std::size_t first = sharing.size();
    std::vector<std::vector<std::uint32_t>> flat_paths;
    std::vector<TraceSender> senders;
    for_each_edge(plan, c, [&](int rank, bool up) {
      const RingHop hop = edges.hop(c, rank, up);
      const std::size_t key = TreeEdges::key(plan, c, rank, up);
      flat_paths.push_back(edges.routes.all_paths(key, c, hop));
      TimedConnection timed = timed_connection(edges.routes, network, timing, key, c, hop, shared);
      delay.of(rank, up) = sim::to_seconds(timed.delay);
      if (shared) {
        sharing.push_back(std::move(timed.sharing));
      }
      if (traced) {
        senders.push_back({hop.src, c, hop.dst, plan.channel_bytes(c).count});
      }
    });
    if (shared) {
      add_shared_edges(plan, c, first, sharing);
      tree->chunks.push_back(plan.loop_chunks(c));
    }
    most.push_back(plan.channel_bytes(c));
    pipeline.channels[at(c)] = connection_groups(
        flat_paths, std::vector<sim::Bytes>(flat_paths.size(), plan.channel_bytes(c)), timing);
    if (traced) {
      pipeline.senders.push_back(std::move(senders));
    }
  }
  pipeline.paths = edges.routes.take_paths();
  tree->plan = std::move(plan);
  tree->streams = timing.streams;
  // Even shares as if every edge sent at once, up and down and at every level: a long
  // pipeline's view.
  pipeline.channel_times =
      connection_channel_times(network, pipeline, timing, false, std::move(tree), std::move(most),
                               shared ? std::optional(std::move(sharing)) : std::nullopt);
  return pipeline;
}

}  // namespace railsim::models
