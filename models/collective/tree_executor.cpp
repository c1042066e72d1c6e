// File: models/collective/tree_executor.cpp
// The chunk-accurate and pipelined runs of a tree plan (see tree_executor.hpp for the model).
#include "models/collective/tree_executor.hpp"

#include "models/collective/group_pipeline.hpp"
#include "models/collective/ring_layout.hpp"
#include "models/collective/transfer_dag.hpp"
#include "sim/assert.hpp"

#include <algorithm>

namespace railsim::models {
namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// The recurrence of tree_executor.hpp for one channel, in seconds from its first send, with every
// edge at `seconds_per_byte` of payload and the delays of each rank's edge up and down.
double tree_channel_seconds(const TreePlan& plan,
                            int channel,
                            double seconds_per_byte,
                            const std::vector<double>& delay_up,
                            const std::vector<double>& delay_down) {
  const RankTree& tree = plan.trees[at(channel)];
  std::vector<double> up(at(plan.ranks()), 0.0);  // end of each edge's latest chunk
  std::vector<double> down(at(plan.ranks()), 0.0);
  double held = 0.0;
  const auto reduced = [&](int rank) {
    double ready = 0.0;
    for (const int child : tree.children[at(rank)]) {
      ready = std::max(ready, up[at(child)] + delay_up[at(child)]);
    }
    return ready;
  };
  for (const sim::Bytes chunk : plan.loop_chunks(channel)) {
    const double tau = static_cast<double>(chunk.count) * seconds_per_byte;
    for (const int rank : tree.reduce_order) {
      if (rank != tree.root) {
        up[at(rank)] = std::max(up[at(rank)], reduced(rank)) + tau;
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
          parent == tree.root ? root_ready : down[at(parent)] + delay_down[at(parent)];
      down[at(rank)] = std::max(down[at(rank)], ready) + tau;
      held = std::max(held, down[at(rank)] + delay_down[at(rank)]);
    }
  }
  return held;
}

}  // namespace

struct TreeExecutor::Impl {
  // The paths of one edge and queue pair: paths[first .. first + count), equal shares.
  struct Route {
    std::uint32_t first = 0;
    std::uint32_t count = 0;
  };

  const System& system;
  sim::FlowNetwork& net;
  sim::Simulator& sim;
  TreePlan plan;
  RingTiming timing;
  std::vector<std::vector<sim::LinkId>> paths;
  std::vector<Route> routes;  // by route_key
  std::unique_ptr<DagExecutor> chunks;
  std::unique_ptr<GroupPipelineExecutor> pipelined;

  Impl(const System& s, sim::FlowNetwork& n, sim::Simulator& si, TreePlan p, RingTiming t)
      : system(s), net(n), sim(si), plan(std::move(p)), timing(t) {
    build_routes();
  }

  int qps() const { return std::max(1, timing.qps_per_connection); }

  std::size_t route_key(int channel, int rank, bool up, int qp) const {
    return ((at(channel) * at(plan.ranks()) + at(rank)) * 2 + (up ? 1 : 0)) * at(qps()) + at(qp);
  }

  bool inter_node(int channel, int rank) const {
    const int parent = plan.trees[at(channel)].parent[at(rank)];
    return plan.comm.node_of(rank) != plan.comm.node_of(parent);
  }

  // Queue pairs of an edge: only network connections have several.
  int edge_qps(int channel, int rank) const { return inter_node(channel, rank) ? qps() : 1; }

  sim::Duration hop_latency(int channel, int rank) const {
    return inter_node(channel, rank) ? timing.inter_hop_latency : timing.intra_hop_latency;
  }

  template <typename Visit>
  void for_each_edge(int channel, Visit&& visit) const {
    const RankTree& tree = plan.trees[at(channel)];
    for (int rank = 0; rank < plan.ranks(); ++rank) {
      if (rank != tree.root) {
        visit(rank, true);
        visit(rank, false);
      }
    }
  }

  void build_routes() {
    const Communicator& comm = plan.comm;
    const std::vector<int> nic_of = gpu_nics(system, comm.gpus_per_node);
    routes.assign(at(plan.channels()) * at(plan.ranks()) * 2 * at(qps()), Route{});
    for (int c = 0; c < plan.channels(); ++c) {
      const RankTree& tree = plan.trees[at(c)];
      for_each_edge(c, [&](int rank, bool up) {
        const int parent = tree.parent[at(rank)];
        RingHop hop;
        hop.src = up ? rank : parent;
        hop.dst = up ? parent : rank;
        hop.inter_node = inter_node(c, rank);
        // Heads talk to heads: the same GPU index, over its NIC at both ends.
        hop.send_nic = hop.recv_nic = nic_of[at(comm.gpu_of(rank))];
        for (int q = 0; q < qps(); ++q) {
          if (q >= edge_qps(c, rank)) {
            routes[route_key(c, rank, up, q)] = routes[route_key(c, rank, up, 0)];
            continue;
          }
          const auto queue_pair =
              static_cast<std::uint64_t>(c) * static_cast<std::uint64_t>(qps()) +
              static_cast<std::uint64_t>(q);
          const std::vector<std::vector<sim::LinkId>> lanes =
              hop_paths(system, comm, hop, queue_pair);
          routes[route_key(c, rank, up, q)] = {static_cast<std::uint32_t>(paths.size()),
                                               static_cast<std::uint32_t>(lanes.size())};
          paths.insert(paths.end(), lanes.begin(), lanes.end());
        }
      });
    }
  }

  sim::Duration path_latency(const Route& route) const {
    sim::Duration longest{};
    for (std::uint32_t i = route.first; i < route.first + route.count; ++i) {
      sim::Duration sum{};
      for (const sim::LinkId link : paths[i]) {
        sum += net.link(link).latency;
      }
      longest = std::max(longest, sum);
    }
    return longest;
  }

  TransferDag chunk_dag() const {
    TransferDag dag;
    dag.paths = paths;
    std::vector<TreeTransfer> transfers = tree_transfers(plan);
    dag.tasks.reserve(transfers.size());
    for (TreeTransfer& t : transfers) {
      const Route& route = routes[route_key(t.channel, t.rank, t.up, t.loop % qps())];
      const sim::Bytes wire = wire_bytes(t.bytes, timing.wire_factor);
      DagTask task;
      task.flows.reserve(route.count);
      for (std::uint32_t i = 0; i < route.count; ++i) {
        task.flows.push_back({route.first + i, even_share(wire, route.count, i)});
      }
      task.flow_cap = timing.connection_cap * (timing.wire_factor / route.count);
      task.hold = hop_latency(t.channel, t.rank);
      task.depends_on = std::move(t.depends_on);
      task.after = t.after;
      dag.tasks.push_back(std::move(task));
    }
    return dag;
  }

  // Every path of an edge, queue pairs first, lanes within.
  std::vector<std::uint32_t> edge_paths(int channel, int rank, bool up) const {
    std::vector<std::uint32_t> flat;
    for (int q = 0; q < edge_qps(channel, rank); ++q) {
      const Route& route = routes[route_key(channel, rank, up, q)];
      for (std::uint32_t i = 0; i < route.count; ++i) {
        flat.push_back(route.first + i);
      }
    }
    return flat;
  }

  // Sub-pipeline j takes path j mod (that edge's count) on each edge, so every path carries an
  // equal share, as ring channels split over queue pairs and lanes.
  GroupPipeline groups() const {
    GroupPipeline pipeline;
    pipeline.paths = paths;
    pipeline.channels.resize(at(plan.channels()));
    for (int c = 0; c < plan.channels(); ++c) {
      std::vector<std::vector<std::uint32_t>> edges;
      std::size_t subs = 1;
      for_each_edge(c, [&](int rank, bool up) {
        edges.push_back(edge_paths(c, rank, up));
        subs = std::max(subs, edges.back().size());
      });
      const sim::Bytes wire = wire_bytes(plan.channel_bytes(c), timing.wire_factor);
      for (std::size_t j = 0; j < subs; ++j) {
        PipelineGroup group;
        group.cap = timing.connection_cap * (timing.wire_factor / static_cast<double>(subs));
        group.members.reserve(edges.size());
        for (const std::vector<std::uint32_t>& flat : edges) {
          group.members.push_back({flat[j % flat.size()], even_share(wire, subs, j)});
        }
        pipeline.channels[at(c)].push_back(std::move(group));
      }
    }
    return pipeline;
  }

  sim::Duration channel_time(int channel, sim::Duration drain) const {
    std::vector<double> delay_up(at(plan.ranks()), 0.0);
    std::vector<double> delay_down(at(plan.ranks()), 0.0);
    for_each_edge(channel, [&](int rank, bool up) {
      sim::Duration longest{};
      for (int q = 0; q < edge_qps(channel, rank); ++q) {
        longest = std::max(longest, path_latency(routes[route_key(channel, rank, up, q)]));
      }
      (up ? delay_up : delay_down)[at(rank)] =
          sim::to_seconds(hop_latency(channel, rank) + longest);
    });
    const auto bytes = static_cast<double>(plan.channel_bytes(channel).count);
    const double seconds_per_byte = bytes > 0.0 ? sim::to_seconds(drain) / bytes : 0.0;
    return sim::seconds(
        tree_channel_seconds(plan, channel, seconds_per_byte, delay_up, delay_down));
  }
};

TreeExecutor::TreeExecutor(const System& system,
                           sim::FlowNetwork& network,
                           sim::Simulator& simulator,
                           TreePlan plan,
                           RingTiming timing)
    : impl_(std::make_unique<Impl>(system, network, simulator, std::move(plan), timing)) {}

TreeExecutor::~TreeExecutor() = default;

void TreeExecutor::start(Execution execution, std::function<void(sim::SimTime)> done) {
  Impl& m = *impl_;
  RAILSIM_ASSERT(!m.chunks && !m.pipelined, "a tree run starts once");
  if (execution == Execution::kChunk) {
    m.chunks = std::make_unique<DagExecutor>(m.net, m.sim, m.chunk_dag());
    m.chunks->start(m.timing.base_latency, std::move(done));
    return;
  }
  m.pipelined = std::make_unique<GroupPipelineExecutor>(
      m.net, m.sim, m.groups(),
      [&m](int channel, sim::Duration drain) { return m.channel_time(channel, drain); });
  m.pipelined->start(m.timing.base_latency, std::move(done));
}

bool TreeExecutor::finished() const {
  return (impl_->chunks && impl_->chunks->finished()) ||
         (impl_->pipelined && impl_->pipelined->finished());
}

}  // namespace railsim::models
