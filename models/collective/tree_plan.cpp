// File: models/collective/tree_plan.cpp
// NCCL's double binary tree over nodes, chains inside them, and the transfers of a Tree
// AllReduce.
#include "models/collective/tree_plan.hpp"

#include "models/collective/non_ring_chunking.hpp"
#include "sim/ceil_div.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace railsim::models {
namespace {

using sim::at;

// The parent of `rank` in NCCL's in-order binary tree over `count` members (ncclGetBtree): a
// member's parent clears its lowest set bit and sets the next one up, or only clears it when
// that falls off the end; member 0 is the root.
int btree_parent(int count, int rank) {
  if (rank == 0) {
    return -1;
  }
  int bit = 1;
  while (bit < count && (bit & rank) == 0) {
    bit <<= 1;
  }
  const int up = (rank ^ bit) | (bit << 1);
  return up < count ? up : rank ^ bit;
}

}  // namespace

std::array<Parents, 2> double_binary_tree(int nodes) {
  if (nodes < 1) {
    throw sim::InputError(fmt::format("tree over {} nodes, expected at least 1", nodes));
  }
  std::array<Parents, 2> trees{Parents(at(nodes)), Parents(at(nodes))};
  for (int r = 0; r < nodes; ++r) {
    trees[0][at(r)] = btree_parent(nodes, r);
    if (nodes % 2 == 0) {
      const int up = btree_parent(nodes, nodes - 1 - r);
      trees[1][at(r)] = up < 0 ? -1 : nodes - 1 - up;
    } else {
      const int up = btree_parent(nodes, (r - 1 + nodes) % nodes);
      trees[1][at(r)] = up < 0 ? -1 : (up + 1) % nodes;
    }
  }
  return trees;
}

RankTree rank_tree(const Communicator& comm, const Parents& node_parent, int head_gpu) {
  const int g_count = comm.gpus_per_node;
  const int n = comm.ranks();
  RankTree tree;
  tree.parent.assign(at(n), -1);
  tree.children.assign(at(n), {});
  const auto chain_rank = [&](int node, int position) {
    return comm.rank_of(node, (head_gpu + position) % g_count);
  };
  for (int m = 0; m < comm.nodes; ++m) {
    for (int i = 1; i < g_count; ++i) {
      tree.parent[at(chain_rank(m, i))] = chain_rank(m, i - 1);
      tree.children[at(chain_rank(m, i - 1))].push_back(chain_rank(m, i));
    }
  }
  for (int m = 0; m < comm.nodes; ++m) {
    const int up = node_parent[at(m)];
    if (up < 0) {
      tree.root = chain_rank(m, 0);
      continue;
    }
    tree.parent[at(chain_rank(m, 0))] = chain_rank(up, 0);
    tree.children[at(chain_rank(up, 0))].push_back(chain_rank(m, 0));
  }
  tree.reduce_order = reduce_order(tree);
  return tree;
}

std::vector<int> reduce_order(const RankTree& tree) {
  // Breadth first from the root lists parents before children; reversed, the reduce order.
  std::vector<int> order;
  order.reserve(tree.children.size());
  order.push_back(tree.root);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::vector<int>& kids = tree.children[at(order[i])];
    order.insert(order.end(), kids.begin(), kids.end());
  }
  std::reverse(order.begin(), order.end());
  return order;
}

sim::Bytes TreePlan::channel_bytes(int channel) const {
  const std::int64_t n = channels();
  return sim::bytes(size.count / n + (channel < size.count % n ? 1 : 0));
}

std::vector<sim::Bytes> TreePlan::loop_chunks(int channel) const {
  std::int64_t left = channel_bytes(channel).count;
  std::vector<sim::Bytes> chunks;
  chunks.reserve(at(static_cast<int>(left / std::max<std::int64_t>(1, chunk.count)) + 1));
  do {
    const std::int64_t piece = std::min(left, chunk.count);
    chunks.push_back(sim::bytes(piece));
    left -= piece;
  } while (left > 0);
  return chunks;
}

std::int64_t TreePlan::transfer_count() const {
  std::int64_t transfers = 0;
  for (int c = 0; c < channels(); ++c) {
    const std::int64_t bytes = channel_bytes(c).count;
    transfers +=
        std::max<std::int64_t>(1, sim::ceil_div(bytes, chunk.count)) * 2 * (vertices(c) - 1);
  }
  return transfers;
}

TreePlan make_tree_plan(Protocol protocol,
                        sim::Bytes size,
                        const Communicator& comm,
                        int channels) {
  if (channels < 1) {
    throw sim::InputError(fmt::format("tree plan: {} channels, expected at least 1", channels));
  }
  if (size.count < 0) {
    throw sim::InputError(fmt::format("tree plan: size {} B, expected >= 0", size.count));
  }
  if (comm.nodes < 1 || comm.gpus_per_node < 1) {
    throw sim::InputError("tree plan: no rank");
  }
  const std::array<Parents, 2> node_trees = double_binary_tree(comm.nodes);
  TreePlan plan;
  plan.comm = comm;
  plan.size = size;
  plan.chunk = tree_chunk(protocol, size, channels, comm.nodes, comm.gpus_per_node);
  plan.trees.reserve(at(channels));
  plan.tree_index.reserve(at(channels));
  for (int c = 0; c < channels; ++c) {
    const int index = 2 * c < channels ? 0 : 1;
    plan.tree_index.push_back(index);
    plan.trees.push_back(rank_tree(comm, node_trees[at(index)], c % comm.gpus_per_node));
  }
  return plan;
}

std::vector<TreeTransfer> tree_transfers(const TreePlan& plan) {
  std::vector<TreeTransfer> out;
  out.reserve(static_cast<std::size_t>(plan.transfer_count()));
  for (int c = 0; c < plan.channels(); ++c) {
    const RankTree& tree = plan.trees[at(c)];
    const int n = plan.vertices(c);
    // This loop's transfer over each rank's edge, up and down, and the previous loop's.
    std::vector<std::optional<std::uint32_t>> up(at(n));
    std::vector<std::optional<std::uint32_t>> down(at(n));
    const auto ups_of_children = [&](int rank) {
      std::vector<std::uint32_t> ids;
      ids.reserve(tree.children[at(rank)].size());
      for (const int child : tree.children[at(rank)]) {
        ids.push_back(*up[at(child)]);
      }
      return ids;
    };
    const std::vector<sim::Bytes> chunks = plan.loop_chunks(c);
    for (int l = 0; l < static_cast<int>(chunks.size()); ++l) {
      const auto add = [&](int rank, bool is_up, std::vector<std::uint32_t> depends_on,
                           std::optional<std::uint32_t>& last) {
        TreeTransfer t;
        t.channel = c;
        t.rank = rank;
        t.up = is_up;
        t.src = is_up ? rank : tree.parent[at(rank)];
        t.dst = is_up ? tree.parent[at(rank)] : rank;
        t.loop = l;
        t.bytes = chunks[at(l)];
        t.depends_on = std::move(depends_on);
        t.after = last;
        last = static_cast<std::uint32_t>(out.size());
        out.push_back(std::move(t));
      };
      for (const int rank : tree.reduce_order) {
        if (rank != tree.root) {
          add(rank, true, ups_of_children(rank), up[at(rank)]);
        }
      }
      for (auto it = tree.reduce_order.rbegin(); it != tree.reduce_order.rend(); ++it) {
        const int rank = *it;
        if (rank == tree.root) {
          continue;
        }
        const int parent = tree.parent[at(rank)];
        add(rank, false,
            parent == tree.root ? ups_of_children(parent)
                                : std::vector<std::uint32_t>{*down[at(parent)]},
            down[at(rank)]);
      }
    }
  }
  return out;
}

}  // namespace railsim::models
