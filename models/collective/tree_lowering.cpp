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

// Every edge of a channel in one order: each non-root vertex's edge up, then down.
template <typename Visit>
void for_each_edge(const TreePlan& plan, int channel, Visit&& visit) {
  const RankTree& tree = plan.trees[at(channel)];
  for (int vertex = 0; vertex < plan.vertices(channel); ++vertex) {
    if (vertex != tree.root) {
      visit(vertex, true);
      visit(vertex, false);
    }
  }
}

// The tree's edges, their routes and their hops, shared by both forms.
struct TreeEdges {
  const TreePlan& plan;
  const CollectiveTiming& timing;
  CommNics nic_of;                      // nic_affinity.hpp
  std::vector<std::size_t> first_edge;  // per channel and one past: its first edge's key
  ConnectionRoutes routes;

  TreeEdges(const System& system, const TreePlan& p, const CollectiveTiming& t)
      : plan(p),
        timing(t),
        nic_of(system, p.comm),
        first_edge(edge_keys(p)),
        routes(system, p.comm, first_edge.back(), t.qps()) {}

  static std::vector<std::size_t> edge_keys(const TreePlan& plan) {
    std::vector<std::size_t> first{0};
    for (int c = 0; c < plan.channels(); ++c) {
      first.push_back(first.back() + at(plan.vertices(c)) * 2);
    }
    return first;
  }

  std::size_t key(int channel, int vertex, bool up) const {
    return first_edge[at(channel)] + at(vertex) * 2 + (up ? 1 : 0);
  }

  int parent(int channel, int vertex) const { return plan.trees[at(channel)].parent[at(vertex)]; }

  // Whether the edge between `vertex` and its parent has a switch at either end (CollNet).
  bool at_switch(int channel, int vertex) const {
    return vertex >= plan.ranks() || parent(channel, vertex) >= plan.ranks();
  }

  // The edge between `vertex` and its parent, up or down. An edge at a switch crosses the
  // network, on the links of the channel's SHARP tree (switch_path), not a route of its own.
  RingHop hop(int channel, int vertex, bool up) const {
    const Communicator& comm = plan.comm;
    RingHop h;
    h.src = up ? vertex : parent(channel, vertex);
    h.dst = up ? parent(channel, vertex) : vertex;
    if (at_switch(channel, vertex)) {
      h.inter_node = true;
      return h;
    }
    h.inter_node = comm.node_of(h.src) != comm.node_of(h.dst);
    // Heads talk to heads: the same GPU index, over its NIC on each node; channels c and c + G
    // (the same head) use a GPU's NICs in turn.
    const int round = channel / comm.gpus_per_node;
    h.send_nic = nic_of.nic(comm.node_of(h.src), comm.gpu_of(h.src), round);
    h.recv_nic = nic_of.nic(comm.node_of(h.dst), comm.gpu_of(h.dst), round);
    return h;
  }

  // The links of an edge at a switch: a head's between its memory and its leaf, or a switch's
  // cable to its parent.
  std::span<const sim::LinkId> switch_path(int channel, int vertex, bool up) const {
    const ReductionTree& sharp = *plan.switches_of(channel);
    if (vertex < plan.ranks()) {
      const std::size_t member = at(plan.comm.node_of(vertex));
      return up ? sharp.member_up[member] : sharp.member_down[member];
    }
    const std::size_t k = at(vertex - plan.ranks());
    return {up ? &sharp.up[k] : &sharp.down[k], 1};
  }

  // The edge's route for queue pair `qp`; an edge at a switch has one whatever the queue pair.
  RouteSpan route(int channel, int vertex, bool up, int qp) {
    const std::size_t k = key(channel, vertex, up);
    if (at_switch(channel, vertex)) {
      return routes.fixed(k, switch_path(channel, vertex, up));
    }
    return routes.route(k, channel, hop(channel, vertex, up), qp);
  }

  // Who a traced edge's sender is: the rank itself, or for a switch a head below it (SHARP's
  // streams show on the tracks of the heads that feed them).
  TraceSender sender(int channel, int vertex, bool up, sim::Bytes bytes) const {
    const RingHop h = hop(channel, vertex, up);
    if (!at_switch(channel, vertex)) {
      return {h.src, channel, h.dst, bytes.count, up ? 0U : 1U};
    }
    return {head_below(channel, vertex), channel, up ? kSharpUpPeer : kSharpDownPeer, bytes.count,
            up ? 0U : 1U};
  }

  int head_below(int channel, int vertex) const {
    const RankTree& tree = plan.trees[at(channel)];
    while (vertex >= plan.ranks()) {
      vertex = tree.children[at(vertex)].front();
    }
    return vertex;
  }
};

// The tree's side of its channels' timing (channel_timing.hpp). A channel's connections are its
// edges in for_each_edge order.
struct TreeChannels final : ChannelModel {
  TreePlan plan;
  bool streams = false;                         // the protocol forwards chunks as they arrive
  std::vector<EdgeValues> delay_s;              // per channel
  std::vector<std::vector<sim::Bytes>> chunks;  // per channel: TreePlan::loop_chunks, to share
  std::vector<std::size_t> shapes;  // per channel: the first channel of its tree, chunks, delays

  // Channels of one tree with the same chunks and delays: Tree's channels of one head and tree,
  // CollNet Direct's of one head.
  void find_shapes() {
    for (int c = 0; c < plan.channels(); ++c) {
      int same = 0;
      while (same < c && (plan.trees[at(same)].parent != plan.trees[at(c)].parent ||
                          plan.loop_chunks(same) != plan.loop_chunks(c) ||
                          delay_s[at(same)].up != delay_s[at(c)].up ||
                          delay_s[at(same)].down != delay_s[at(c)].down)) {
        ++same;
      }
      shapes.push_back(at(same));
    }
  }

  std::size_t recurrence_shape(int channel) const override { return shapes[at(channel)]; }

  double recurrence_seconds(int c, std::span<const double> seconds_per_byte) const override {
    EdgeValues per_edge(plan.vertices(c));
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
  std::vector<std::uint32_t> up_index(at(plan.vertices(c)));
  std::vector<std::uint32_t> down_index(at(plan.vertices(c)));
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
      dag.senders.push_back(edges.sender(t.channel, t.rank, t.up, t.bytes));
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
    EdgeValues& delay = tree->delay_s.emplace_back(plan.vertices(c));
    const std::size_t first = sharing.size();
    std::vector<std::vector<std::uint32_t>> flat_paths;
    std::vector<TraceSender> senders;
    for_each_edge(plan, c, [&](int rank, bool up) {
      const RingHop hop = edges.hop(c, rank, up);
      const std::size_t key = edges.key(c, rank, up);
      edges.route(c, rank, up, 0);  // an edge at a switch: its links, before any queue pair's
      flat_paths.push_back(edges.routes.all_paths(key, c, hop));
      TimedConnection timed = timed_connection(edges.routes, network, timing, key, c, hop, shared);
      delay.of(rank, up) = sim::to_seconds(timed.delay);
      if (shared) {
        sharing.push_back(std::move(timed.sharing));
      }
      if (traced) {
        senders.push_back(edges.sender(c, rank, up, plan.channel_bytes(c)));
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
  tree->find_shapes();
  // Even shares as if every edge sent at once, up and down and at every level: a long
  // pipeline's view.
  pipeline.channel_times =
      connection_channel_times(network, pipeline, timing, false, std::move(tree), std::move(most),
                               shared ? std::optional(std::move(sharing)) : std::nullopt);
  return pipeline;
}

}  // namespace railsim::models
