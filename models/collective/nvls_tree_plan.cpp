// File: models/collective/nvls_tree_plan.cpp
// NVLS Tree's pieces per head, its node trees, and the tasks of each piece.
#include "models/collective/nvls_tree_plan.hpp"

#include "models/collective/non_ring_chunking.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace railsim::models {
namespace {

using sim::at;

// NvlsPlan cuts a channel into loops of one piece per head; NVLS Tree's heads own its pieces.
NvlsPlan pieces_of(const NvlsTreePlan& plan) {
  return NvlsPlan{CollectiveOp::kAllReduce, plan.heads(), plan.channels, plan.size, plan.chunk};
}

}  // namespace

sim::Bytes NvlsTreePlan::channel_bytes(int channel) const {
  return pieces_of(*this).channel_bytes(channel);
}

std::vector<sim::Bytes> NvlsTreePlan::loop_pieces(int channel) const {
  return pieces_of(*this).loop_pieces(channel);
}

std::int64_t NvlsTreePlan::transfer_count() const {
  // Per piece: a reduce and a store in every node, an up and a down over every tree edge.
  const std::int64_t per_piece = 2 * std::int64_t{nodes()} + 2 * (std::int64_t{nodes()} - 1);
  return pieces_of(*this).transfer_count() * per_piece;
}

NvlsTreePlan make_nvls_tree_plan(sim::Bytes size,
                                 const Communicator& comm,
                                 std::vector<int> head_gpus,
                                 int channels) {
  if (comm.nodes < 2) {
    throw sim::InputError(fmt::format(
        "nvlstree plan: {} node, expected at least 2 (one node runs nvls)", comm.nodes));
  }
  if (channels < 1) {
    throw sim::InputError(fmt::format("nvlstree plan: {} channels, expected at least 1", channels));
  }
  if (size.count < 0) {
    throw sim::InputError(fmt::format("nvlstree plan: size {} B, expected >= 0", size.count));
  }
  std::vector<int> sorted = head_gpus;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.size() < 2 || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() ||
      sorted.front() < 0 || sorted.back() >= comm.gpus_per_node) {
    throw sim::InputError(
        fmt::format("nvlstree plan: heads {}, expected at least 2 distinct GPUs of 0 to {}",
                    fmt::join(head_gpus, ","), comm.gpus_per_node - 1));
  }
  NvlsTreePlan plan;
  plan.comm = comm;
  plan.channels = channels;
  plan.size = size;
  plan.chunk = nvls_tree_chunk(size, channels, static_cast<int>(head_gpus.size()), comm.nodes);
  plan.head_gpus = std::move(head_gpus);
  // One rank per node: rank_tree's chains are then single heads, its ranks the nodes.
  const Communicator nodes{comm.nodes, 1};
  const std::array<Parents, 2> parents = double_binary_tree(comm.nodes);
  plan.node_trees = {rank_tree(nodes, parents[0], 0), rank_tree(nodes, parents[1], 0)};
  return plan;
}

std::vector<NvlsTreeTask> nvls_tree_tasks(const NvlsTreePlan& plan) {
  std::vector<NvlsTreeTask> out;
  out.reserve(static_cast<std::size_t>(plan.transfer_count()));
  const int nodes = plan.nodes();
  const int heads = plan.heads();
  for (int c = 0; c < plan.channels; ++c) {
    const RankTree& tree = plan.tree(c);
    // The latest task of each (head, node, step), for `after`; this loop's, for dependencies.
    std::vector<std::array<std::optional<std::uint32_t>, 4>> last(at(heads) * at(nodes));
    const std::vector<sim::Bytes> pieces = plan.loop_pieces(c);
    const int loops = static_cast<int>(pieces.size()) / heads;
    for (int l = 0; l < loops; ++l) {
      for (int h = 0; h < heads; ++h) {
        const sim::Bytes bytes = pieces[at(l * heads + h)];
        const auto slot = [&](int node, NvlsTreeStep step) -> std::optional<std::uint32_t>& {
          return last[at(h * nodes + node)][static_cast<std::size_t>(step)];
        };
        const auto add = [&](NvlsTreeStep step, int node, std::vector<std::uint32_t> depends_on) {
          std::optional<std::uint32_t>& previous = slot(node, step);
          out.push_back({step, c, h, node, l, bytes, std::move(depends_on), previous});
          previous = static_cast<std::uint32_t>(out.size() - 1);
        };
        // What a node holds once its reduce and its children's ups have landed.
        const auto reduced = [&](int node) {
          std::vector<std::uint32_t> ids{*slot(node, NvlsTreeStep::kReduce)};
          for (const int child : tree.children[at(node)]) {
            ids.push_back(*slot(child, NvlsTreeStep::kUp));
          }
          return ids;
        };
        for (int m = 0; m < nodes; ++m) {
          add(NvlsTreeStep::kReduce, m, {});
        }
        for (const int m : tree.reduce_order) {
          if (m != tree.root) {
            add(NvlsTreeStep::kUp, m, reduced(m));
          }
        }
        // The result a node holds: the root's reduce, or what came down to it.
        const auto result = [&](int node) {
          return node == tree.root ? reduced(node)
                                   : std::vector<std::uint32_t>{*slot(node, NvlsTreeStep::kDown)};
        };
        for (auto it = tree.reduce_order.rbegin(); it != tree.reduce_order.rend(); ++it) {
          if (*it != tree.root) {
            add(NvlsTreeStep::kDown, *it, result(tree.parent[at(*it)]));
          }
        }
        for (int m = 0; m < nodes; ++m) {
          add(NvlsTreeStep::kStore, m, result(m));
        }
      }
    }
  }
  return out;
}

std::vector<PortLoad> nvls_tree_port_loads(NvlsTreeStep step,
                                           int gpus,
                                           int head_gpu,
                                           sim::Bytes bytes) {
  switch (step) {
    case NvlsTreeStep::kReduce:
      return nvls_operation(CollectiveOp::kReduceScatter, gpus, head_gpu, bytes);
    case NvlsTreeStep::kStore:
      return nvls_operation(CollectiveOp::kAllGather, gpus, head_gpu, bytes);
    case NvlsTreeStep::kUp:
    case NvlsTreeStep::kDown:
      break;
  }
  return {};
}

}  // namespace railsim::models
