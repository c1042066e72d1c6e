// File: models/collective/nvls_tree_lowering.cpp
// NVLS Tree as NVSwitch operations on every node's ports and messages between heads' NICs, as a
// task DAG, and as flow groups with the per-step recurrence (see the header).
#include "models/collective/nvls_tree_lowering.hpp"

#include "models/collective/channel_timing.hpp"
#include "models/collective/connection_routes.hpp"
#include "models/collective/nvls_lowering.hpp"
#include "models/collective/nvls_tree_time.hpp"
#include "models/collective/ring_layout.hpp"
#include "sim/assert.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <utility>

namespace railsim::models {
namespace {

using sim::at;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

bool on_switch(NvlsTreeStep step) {
  return step == NvlsTreeStep::kReduce || step == NvlsTreeStep::kStore;
}

// The tree edges between heads, their routes (after the ports in the path list) and their hops.
struct HeadEdges {
  const NvlsTreePlan& plan;
  CommNics nic_of;  // nic_affinity.hpp
  ConnectionRoutes routes;

  HeadEdges(const System& system, const NvlsTreePlan& p, int qps, PathTable ports)
      : plan(p),
        nic_of(system, p.comm),
        routes(system,
               p.comm,
               at(p.channels) * at(p.heads()) * at(p.nodes()) * 2,
               qps,
               std::move(ports)) {}

  std::size_t key(int channel, int head, int node, bool up) const {
    return ((at(channel) * at(plan.heads()) + at(head)) * at(plan.nodes()) + at(node)) * 2 +
           (up ? 1 : 0);
  }

  // The edge between `node`'s head `head` and its parent node's, up or down.
  RingHop hop(int channel, int head, int node, bool up) const {
    const Communicator& comm = plan.comm;
    const int gpu = plan.head_gpus[at(head)];
    const int parent = plan.tree(channel).parent[at(node)];
    RingHop h;
    h.src = comm.rank_of(up ? node : parent, gpu);
    h.dst = comm.rank_of(up ? parent : node, gpu);
    h.inter_node = true;
    // A head sends and receives through its own NIC, on every node; a head with several NICs
    // uses them in turn over each tree's channels (channel c is in tree c mod 2), so both trees
    // load every port alike.
    const int round = channel / 2;
    h.send_nic = nic_of.nic(up ? node : parent, gpu, round);
    h.recv_nic = nic_of.nic(up ? parent : node, gpu, round);
    return h;
  }

  RouteSpan route(int channel, int head, int node, bool up, int qp) {
    return routes.route(key(channel, head, node, up), channel, hop(channel, head, node, up), qp);
  }

  std::vector<std::uint32_t> all_paths(int channel, int head, int node, bool up) {
    return routes.all_paths(key(channel, head, node, up), channel, hop(channel, head, node, up));
  }
};

// The rank that sends a task: the node's head, or the edge's sender.
TraceSender sender_of(const NvlsTreePlan& plan, const NvlsTreeTask& t) {
  const int gpu = plan.head_gpus[at(t.head)];
  const auto what = static_cast<std::uint32_t>(t.step);
  if (on_switch(t.step)) {
    return {plan.comm.rank_of(t.node, gpu), t.channel, kSwitchPeer, t.bytes.count, what};
  }
  const int parent = plan.tree(t.channel).parent[at(t.node)];
  const bool up = t.step == NvlsTreeStep::kUp;
  return {plan.comm.rank_of(up ? t.node : parent, gpu), t.channel,
          plan.comm.rank_of(up ? parent : t.node, gpu), t.bytes.count, what};
}

constexpr std::uint32_t kNoEdge = std::numeric_limits<std::uint32_t>::max();

// The halves of a node's NVSwitch operations of one loop, all heads together: the reduce's reads
// (every GPU's port up carries every head's piece) and its returns (each head's port down its
// sum), the store's writes (each head's port up its piece) and its multicast (every GPU's port
// down every head's piece).
enum class SwitchPart { kReads, kReturns, kWrites, kMulticast };

constexpr std::array kSwitchParts = {SwitchPart::kReads, SwitchPart::kReturns, SwitchPart::kWrites,
                                     SwitchPart::kMulticast};

// How the pipelined timing sees a channel: per node the four parts of its operations for all heads
// of a loop together (their pieces are equal, or differ by the last loop's remainder, and they
// start together), per head and node below the root an edge up and an edge down. Its positions:
// the recurrence's, their even shares, slice sharing's connections. Only the tree decides it, so
// there are two.
struct ChannelLayout {
  std::vector<std::array<std::uint32_t, 4>> parts;  // per node, by SwitchPart
  std::vector<std::uint32_t> up;                    // per head x nodes + node, or kNoEdge
  std::vector<std::uint32_t> down;                  // the same
  std::vector<std::int32_t> head_of;  // per position: the edge's head, or -1 for a part
  std::vector<SwitchPart> part_of;    // per position: its part (edges: unused)
  std::uint32_t size = 0;
};

ChannelLayout channel_layout(const NvlsTreePlan& plan, const RankTree& tree) {
  ChannelLayout layout;
  const auto add = [&](int head, SwitchPart part) {
    layout.head_of.push_back(head);
    layout.part_of.push_back(part);
    return layout.size++;
  };
  for (int m = 0; m < plan.nodes(); ++m) {
    std::array<std::uint32_t, 4>& parts = layout.parts.emplace_back();
    for (const SwitchPart part : kSwitchParts) {
      parts[static_cast<std::size_t>(part)] = add(-1, part);
    }
  }
  for (int h = 0; h < plan.heads(); ++h) {
    for (int m = 0; m < plan.nodes(); ++m) {
      const bool root = m == tree.root;
      layout.up.push_back(root ? kNoEdge : add(h, SwitchPart::kReads));
      layout.down.push_back(root ? kNoEdge : add(h, SwitchPart::kReads));
    }
  }
  return layout;
}

// The NVLS Tree side of its channels' timing (channel_timing.hpp): the recurrence of the header
// (nvls_tree_time.hpp), a node's operations of a loop timed by the loop's largest piece, each the
// slower of its two parts. Slice sharing moves each part of a loop as one transfer split over its
// ports (lanes), each lane carrying the loop's pieces in wire bytes: every head's on every GPU's
// port (reads, multicast), or the head's own on its port (returns, writes). So every port carries
// what the chunk run's operations put on it, when they do.
struct NvlsTreeChannels final : ChannelModel {
  NvlsTreePlan plan;
  std::array<ChannelLayout, 2> layouts;  // by tree
  double switch_delay_s = 0.0;           // an operation's hold and its ports' latency
  double switch_wire_factor = 1.0;
  std::vector<std::vector<double>> up_delay_s;    // per channel and head x nodes + node
  std::vector<std::vector<double>> down_delay_s;  // the same
  std::vector<std::vector<sim::Bytes>> pieces;    // per channel: NvlsTreePlan::loop_pieces
  std::vector<std::size_t> shapes;  // per channel: the first channel of its tree, pieces, delays

  const ChannelLayout& layout(int channel) const { return layouts[at(channel % 2)]; }

  // Channels of one tree with the same pieces and delays, which a uniform fabric gives them all.
  void find_shapes() {
    for (std::size_t c = 0; c < pieces.size(); ++c) {
      std::size_t same = c % 2;
      while (same < c && (pieces[same] != pieces[c] || up_delay_s[same] != up_delay_s[c] ||
                          down_delay_s[same] != down_delay_s[c])) {
        same += 2;
      }
      shapes.push_back(same);
    }
  }

  std::size_t recurrence_shape(int channel) const override { return shapes[at(channel)]; }

  double recurrence_seconds(int c, std::span<const double> seconds_per_byte) const override {
    const ChannelLayout& layout = this->layout(c);
    const std::size_t nodes = layout.parts.size();
    const std::size_t cells = layout.up.size();
    NvlsTreePaces paces;
    paces.switch_delay_s = switch_delay_s;
    paces.up_delay_s = up_delay_s[at(c)];
    paces.down_delay_s = down_delay_s[at(c)];
    const auto pace = [&](std::size_t node, SwitchPart part) {
      return seconds_per_byte[layout.parts[node][static_cast<std::size_t>(part)]];
    };
    for (std::size_t m = 0; m < nodes; ++m) {
      paces.reduce_s_per_byte.push_back(
          std::max(pace(m, SwitchPart::kReads), pace(m, SwitchPart::kReturns)));
      paces.store_s_per_byte.push_back(
          std::max(pace(m, SwitchPart::kWrites), pace(m, SwitchPart::kMulticast)));
    }
    const auto edge_pace = [&](std::uint32_t position) {
      return position == kNoEdge ? 0.0 : seconds_per_byte[position];
    };
    paces.up_s_per_byte.resize(cells);
    paces.down_s_per_byte.resize(cells);
    std::transform(layout.up.begin(), layout.up.end(), paces.up_s_per_byte.begin(), edge_pace);
    std::transform(layout.down.begin(), layout.down.end(), paces.down_s_per_byte.begin(),
                   edge_pace);
    return nvls_tree_channel_seconds(plan.tree(c), plan.heads(), pieces[at(c)], paces);
  }

  // Nothing is held before the last byte has left.
  sim::Duration lower_bound(int /*channel*/, sim::Duration drain) const override { return drain; }

  // An edge moves its head's pieces in order; a part of the operations the loop's pieces, in wire
  // bytes, on each of its lanes: every head's on every GPU's port, or each head's on its own.
  sim::Bytes transfer_bytes(int c, int p, std::int64_t t) const override {
    const ChannelLayout& layout = this->layout(c);
    const std::int32_t head = layout.head_of[at(p)];
    const std::vector<sim::Bytes>& own = pieces[at(c)];
    const auto first = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(t) * at(plan.heads()));
    if (head >= 0) {
      return own[static_cast<std::size_t>(first + head)];
    }
    const auto loop = own.begin() + first;
    switch (layout.part_of[at(p)]) {
      case SwitchPart::kReads:
      case SwitchPart::kMulticast: {
        const sim::Bytes all = std::accumulate(loop, loop + plan.heads(), sim::Bytes{});
        return wire_bytes(all, switch_wire_factor) * plan.comm.gpus_per_node;
      }
      case SwitchPart::kReturns:
      case SwitchPart::kWrites:
        break;
    }
    return wire_bytes(*std::max_element(loop, loop + plan.heads()), switch_wire_factor) *
           plan.heads();
  }
};

}  // namespace

std::vector<int> nvls_tree_heads(const System& system, const Communicator& comm, int count) {
  std::vector<int> heads = CommNics(system, comm).heads(count);
  if (heads.size() < 2) {
    throw sim::InputError(
        fmt::format("nvlstree needs at least 2 NVLS heads, each with a NIC of its own; {} has {}",
                    system.spec().node.name, heads.size()));
  }
  return heads;
}

TransferDag nvls_tree_dag(const System& system,
                          const NvlsTreePlan& plan,
                          const NvlsTreeTiming& timing,
                          bool traced) {
  HeadEdges edges(system, plan, timing.network.qps(),
                  nvswitch_ports(system, plan.comm, "nvlstree"));
  const int gpus = plan.comm.gpus_per_node;
  std::vector<NvlsTreeTask> tasks = nvls_tree_tasks(plan);
  TransferDag dag;
  dag.tasks.reserve(tasks.size());
  if (traced) {
    dag.names = {"reduce", "up", "down", "store"};
    dag.senders.reserve(tasks.size());
  }
  for (NvlsTreeTask& t : tasks) {
    DagTask task;
    if (on_switch(t.step)) {
      const int head = plan.head_gpus[at(t.head)];
      for (const PortLoad& load : nvls_tree_port_loads(t.step, gpus, head, t.bytes)) {
        task.flows.push_back({.path = nvswitch_port(gpus, t.node, load.gpu, load.to_switch),
                              .bytes = wire_bytes(load.bytes, timing.nvls_wire_factor)});
      }
      task.grouped = true;
      task.hold = timing.nvls_hold;
    } else {
      const RouteSpan route = edges.route(t.channel, t.head, t.node, t.step == NvlsTreeStep::kUp,
                                          t.loop % timing.network.qps());
      task = connection_task(route, t.bytes, true, timing.network);
    }
    task.depends_on = std::move(t.depends_on);
    task.after = t.after;
    dag.tasks.push_back(std::move(task));
    if (traced) {
      dag.senders.push_back(sender_of(plan, t));
    }
  }
  dag.paths = edges.routes.take_paths();
  return dag;
}

GroupPipeline nvls_tree_pipeline(const System& system,
                                 const sim::FlowNetwork& network,
                                 NvlsTreePlan plan,
                                 const NvlsTreeTiming& timing,
                                 bool traced) {
  HeadEdges edges(system, plan, timing.network.qps(),
                  nvswitch_ports(system, plan.comm, "nvlstree"));
  const std::size_t port_count = edges.routes.paths().size();  // no route is asked for yet
  const int gpus = plan.comm.gpus_per_node;
  const int heads = plan.heads();
  const int nodes = plan.nodes();
  const std::size_t cells = at(heads) * at(nodes);
  auto model = std::make_unique<NvlsTreeChannels>();
  model->layouts = {channel_layout(plan, plan.node_trees[0]),
                    channel_layout(plan, plan.node_trees[1])};
  model->switch_wire_factor = timing.nvls_wire_factor;
  std::vector<std::size_t> first{0};  // per channel and one past: its first connection
  std::int64_t transfers = 0;
  for (int c = 0; c < plan.channels; ++c) {
    model->pieces.push_back(plan.loop_pieces(c));
    first.push_back(first.back() + model->layout(c).size);
    transfers +=
        static_cast<std::int64_t>(model->pieces.back().size() / at(heads)) * model->layout(c).size;
  }
  const bool shared = transfers <= kSliceSharingLimit;
  std::vector<SharingConnection> sharing(shared ? first.back() : 0);
  std::vector<sim::Bytes> most;                 // per channel: its busiest head's bytes
  std::vector<std::vector<sim::Bytes>> headed;  // per channel and head: the head's bytes
  GroupPipeline pipeline;
  pipeline.channels.resize(at(plan.channels));
  // The tree edges first: their even shares come from their groups alone (they share no link with
  // the ports), in the order the groups list them (heads, nodes, up then down).
  for (int c = 0; c < plan.channels; ++c) {
    const RankTree& tree = plan.tree(c);
    const ChannelLayout& layout = model->layout(c);
    const std::vector<sim::Bytes>& pieces = model->pieces[at(c)];
    const auto loops = static_cast<std::int64_t>(pieces.size() / at(heads));
    std::vector<sim::Bytes>& own = headed.emplace_back(at(heads));
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      own[i % at(heads)] += pieces[i];
    }
    most.push_back(*std::max_element(own.begin(), own.end()));
    std::vector<double>& up_delay = model->up_delay_s.emplace_back(cells, 0.0);
    std::vector<double>& down_delay = model->down_delay_s.emplace_back(cells, 0.0);
    std::vector<std::vector<std::uint32_t>> flat_paths;
    std::vector<sim::Bytes> payload;
    std::vector<TraceSender> senders;
    for (int h = 0; h < heads; ++h) {
      for (int m = 0; m < nodes; ++m) {
        if (m == tree.root) {
          continue;
        }
        const std::size_t cell = at(h) * at(nodes) + at(m);
        for (const bool up : {true, false}) {
          const RingHop hop = edges.hop(c, h, m, up);
          flat_paths.push_back(edges.all_paths(c, h, m, up));
          payload.push_back(own[at(h)]);
          TimedConnection timed = timed_connection(edges.routes, network, timing.network,
                                                   edges.key(c, h, m, up), c, hop, shared);
          (up ? up_delay : down_delay)[cell] = sim::to_seconds(timed.delay);
          if (shared) {
            SharingConnection& connection =
                sharing[first[at(c)] + (up ? layout.up : layout.down)[cell]];
            connection = std::move(timed.sharing);
            connection.transfers = loops;
          }
          if (traced) {
            senders.push_back({hop.src, c, hop.dst, own[at(h)].count});
          }
        }
      }
    }
    pipeline.channels[at(c)] = connection_groups(flat_paths, payload, timing.network);
    if (traced) {
      for (int m = 0; m < nodes; ++m) {
        for (int h = 0; h < heads; ++h) {
          senders.push_back(
              {plan.comm.rank_of(m, plan.head_gpus[at(h)]), c, kSwitchPeer, own[at(h)].count});
        }
      }
      pipeline.senders.push_back(std::move(senders));
    }
  }
  pipeline.paths = edges.routes.take_paths();
  const std::vector<std::vector<double>> edge_rate = even_share_rates(
      network, pipeline, timing.network.wire_factor, timing.network.connection_cap, false);

  // Each channel's NVSwitch ports as one more group, every port carrying its operations' loads.
  for (int c = 0; c < plan.channels; ++c) {
    std::vector<sim::Bytes> load(port_count);
    for (int h = 0; h < heads; ++h) {
      const sim::Bytes bytes = headed[at(c)][at(h)];
      for (const NvlsTreeStep step : {NvlsTreeStep::kReduce, NvlsTreeStep::kStore}) {
        for (const PortLoad& l : nvls_tree_port_loads(step, gpus, plan.head_gpus[at(h)], bytes)) {
          for (int m = 0; m < nodes; ++m) {
            load[nvswitch_port(gpus, m, l.gpu, l.to_switch)] += l.bytes;
          }
        }
      }
    }
    PipelineGroup group;
    group.members.reserve(port_count);
    for (std::size_t p = 0; p < port_count; ++p) {
      group.members.push_back({.path = static_cast<std::uint32_t>(p),
                               .bytes = wire_bytes(load[p], timing.nvls_wire_factor)});
    }
    pipeline.channels[at(c)].push_back(std::move(group));
  }
  sim::Duration port_latency{};  // the longest
  for (std::size_t p = 0; p < port_count; ++p) {
    port_latency = std::max(port_latency, network.link(pipeline.paths[p].front()).latency);
  }
  model->switch_delay_s = sim::to_seconds(timing.nvls_hold + port_latency);

  // A part of a node's operations crosses every GPU's port, or every head's, in one direction, once
  // per channel. The recurrence times each part at the share of the slowest such port over the
  // channels, the port carrying (heads + 1) / heads of every head's piece per loop in wire bytes
  // (both halves of the operations cross it), in one head's payload bytes per second; slice
  // sharing moves it as one transfer over those ports (lanes).
  const double port_factor = timing.nvls_wire_factor * (1.0 + 1.0 / heads);
  const auto part_of = [&](int node, SwitchPart part) {
    const bool every_gpu = part == SwitchPart::kReads || part == SwitchPart::kMulticast;
    const bool to_switch = part == SwitchPart::kReads || part == SwitchPart::kWrites;
    SharingRoute route{{}, model->switch_delay_s};
    double slowest = kInfinity;
    for (int i = 0; i < (every_gpu ? gpus : heads); ++i) {
      const int gpu = every_gpu ? i : plan.head_gpus[at(i)];
      const std::uint32_t p = nvswitch_port(gpus, node, gpu, to_switch);
      slowest = std::min(slowest, network.link(pipeline.paths[p].front()).capacity.bytes_per_s);
      route.lanes.emplace_back(pipeline.paths[p].begin(), pipeline.paths[p].end());
    }
    return std::pair{std::move(route), slowest / plan.channels / port_factor / heads};
  };
  std::vector<std::vector<double>> even_rate(at(plan.channels));
  for (int c = 0; c < plan.channels; ++c) {
    const RankTree& tree = plan.tree(c);
    const ChannelLayout& layout = model->layout(c);
    const auto loops = static_cast<std::int64_t>(model->pieces[at(c)].size() / at(heads));
    std::vector<double>& rate = even_rate[at(c)];
    rate.assign(layout.size, kInfinity);
    const auto global = [&](std::uint32_t position) {
      return static_cast<std::uint32_t>(first[at(c)] + position);
    };
    for (int m = 0; m < nodes; ++m) {
      for (const SwitchPart part : kSwitchParts) {
        auto [route, share] = part_of(m, part);
        const std::uint32_t position = layout.parts[at(m)][static_cast<std::size_t>(part)];
        rate[position] = share;
        if (shared) {
          SharingConnection& connection = sharing[global(position)];
          connection.routes = {std::move(route)};
          connection.transfers = loops;
        }
      }
    }
    std::size_t e = 0;  // the edges in the order the groups list them
    for (int h = 0; h < heads; ++h) {
      for (int m = 0; m < nodes; ++m) {
        const std::size_t cell = at(h) * at(nodes) + at(m);
        if (m != tree.root) {
          rate[layout.up[cell]] = edge_rate[at(c)][e++];
          rate[layout.down[cell]] = edge_rate[at(c)][e++];
        }
      }
    }
    if (!shared) {
      continue;
    }
    // What each connection forwards, as the chunk run's dependencies, a node's store waiting for
    // every head's result.
    const auto held_reduce = [&](int head, int node) {
      const std::array<std::uint32_t, 4>& parts = layout.parts[at(node)];
      std::vector<std::uint32_t> inputs{
          global(parts[static_cast<std::size_t>(SwitchPart::kReads)]),
          global(parts[static_cast<std::size_t>(SwitchPart::kReturns)])};
      for (const int child : tree.children[at(node)]) {
        inputs.push_back(global(layout.up[at(head) * at(nodes) + at(child)]));
      }
      return inputs;
    };
    const auto held_result = [&](int head, int node) {
      return node == tree.root
                 ? held_reduce(head, node)
                 : std::vector<std::uint32_t>{global(layout.down[at(head) * at(nodes) + at(node)])};
    };
    for (int m = 0; m < nodes; ++m) {
      std::vector<std::uint32_t> stored;  // every head's result
      for (int h = 0; h < heads; ++h) {
        const std::size_t cell = at(h) * at(nodes) + at(m);
        if (m != tree.root) {
          sharing[global(layout.up[cell])].inputs = held_reduce(h, m);
          sharing[global(layout.down[cell])].inputs = held_result(h, tree.parent[at(m)]);
        }
        for (const std::uint32_t input : held_result(h, m)) {
          if (std::find(stored.begin(), stored.end(), input) == stored.end()) {
            stored.push_back(input);
          }
        }
      }
      for (const SwitchPart part : {SwitchPart::kWrites, SwitchPart::kMulticast}) {
        sharing[global(layout.parts[at(m)][static_cast<std::size_t>(part)])].inputs = stored;
      }
    }
  }
  std::optional<SharingInput> sliced;
  if (shared) {
    sliced = SharingInput{std::move(sharing), timing.network.wire_factor, false};
  }
  model->plan = std::move(plan);
  model->find_shapes();
  auto policy = std::make_shared<ChannelTiming>(network, std::move(model), std::move(most),
                                                std::move(even_rate), timing.network.qps() == 1,
                                                std::move(sliced));
  pipeline.channel_times = [policy](const std::vector<sim::Duration>& drains) {
    return policy->channel_times(drains);
  };
  return pipeline;
}

}  // namespace railsim::models
