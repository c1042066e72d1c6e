// File: models/collective/tree_plan.hpp
// TreePlan: NCCL's Tree AllReduce as data, independent of the hardware that runs it
// (nccl:src/graph/trees.cc, src/graph/connect.cc, src/device/all_reduce.h).
//
// Across nodes, a double binary tree: tree 1 is NCCL's in-order binary tree over node indices
// (node 0 the root with one child, odd nodes the leaves, depth log2(nodes) for a power of two),
// tree 2 its mirror (node i in the place of nodes - 1 - i) for an even node count, or its shift
// by one for an odd one, so that a node interior in one tree is a leaf in the other. The first
// half of the channels run tree 1 and the second half tree 2 (NCCL duplicates the channels and
// gives the copies the second tree), so each tree carries half the data.
//
// Inside a node the ranks form a chain from the channel's head: the GPU beside the channel's NIC
// (GPU c mod G, as rings enter nodes), then the next GPUs in index order. The head is the node's
// place in the tree: it talks to its parent node's head and its child nodes' heads, always over
// its own NIC, both ways.
//
// AllReduce = reduce up the tree, then broadcast down, pipelined: each channel's bytes are cut
// into chunks (non_ring_chunking.hpp), and per chunk every rank but the root sends its partial
// sum to its parent once it holds all of its children's (the reduce waits for all of them); the
// root, once it holds all its children's, sends the result down, and every rank forwards what
// it receives from its parent to its children. So every non-root rank sends each channel's
// bytes once up and receives them once down.
//
// CollNet (collnet_plan.hpp) runs the same reduce and broadcast over trees whose upper vertices
// are switches that reduce: a channel's tree then has vertices beyond its ranks, vertex
// ranks() + k being switch k of the channel's SHARP tree.
#pragma once

#include "models/collective/collective_types.hpp"
#include "models/collective/communicator.hpp"
#include "models/system/reduction_tree.hpp"
#include "sim/bytes.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace railsim::models {

// A tree as each member's parent (-1 at the root).
using Parents = std::vector<int>;

// NCCL's two trees over `nodes` nodes (ncclGetDtree): tree 1 in order, tree 2 mirrored or
// shifted. Throws sim::InputError for nodes < 1.
std::array<Parents, 2> double_binary_tree(int nodes);

// One channel's tree over ranks.
struct RankTree {
  int root = 0;
  Parents parent;                          // per rank
  std::vector<std::vector<int>> children;  // per rank: its chain successor first, then nodes
  std::vector<int> reduce_order;           // every rank after all of its children
};

// Every member of `tree` after all of its children (breadth first from the root, reversed), from
// its root and children lists.
std::vector<int> reduce_order(const RankTree& tree);

// The tree of a channel whose heads are GPU `head_gpu` of every node, over the node tree
// `node_parent` (one entry per node of `comm`).
RankTree rank_tree(const Communicator& comm, const Parents& node_parent, int head_gpu);

struct TreePlan {
  Communicator comm;
  std::vector<RankTree> trees;  // per channel
  std::vector<int> tree_index;  // per channel: 0 (tree 1) or 1 (tree 2)
  sim::Bytes size;              // the AllReduce buffer
  sim::Bytes chunk;             // per channel per loop
  // CollNet only, else empty: the SHARP trees, and per channel the one its switch vertices are.
  std::vector<ReductionTree> reduction_trees;
  std::vector<int> reduction_tree;

  int channels() const { return static_cast<int>(trees.size()); }

  int ranks() const { return comm.ranks(); }

  // Channel c's tree's vertices: its ranks, then its switches.
  int vertices(int channel) const {
    return static_cast<int>(trees[static_cast<std::size_t>(channel)].parent.size());
  }

  // The SHARP tree of channel c, whose switch k is vertex ranks() + k; nullptr for Tree.
  const ReductionTree* switches_of(int channel) const {
    return reduction_tree.empty() ? nullptr
                                  : &reduction_trees[static_cast<std::size_t>(
                                        reduction_tree[static_cast<std::size_t>(channel)])];
  }

  // The payload channel c carries (the first channels one byte more when it does not divide).
  sim::Bytes channel_bytes(int channel) const;

  // Per-loop chunk sizes of channel c: full chunks and what is left; one empty loop for no data.
  std::vector<sim::Bytes> loop_chunks(int channel) const;

  // How many transfers tree_transfers() lists, without listing them.
  std::int64_t transfer_count() const;
};

// Throws sim::InputError for no channel or a negative size.
TreePlan make_tree_plan(Protocol protocol, sim::Bytes size, const Communicator& comm, int channels);

// One chunk moving over one edge of a channel's tree, up (child to parent) or down.
struct TreeTransfer {
  int channel = 0;
  int rank = 0;  // the edge's lower end: every edge joins a non-root vertex to its parent
  bool up = true;
  int src = 0;  // vertices
  int dst = 0;
  int loop = 0;
  sim::Bytes bytes;
  // What the sender must hold first: up, its children's up transfers of this chunk; down, its
  // parent's down transfer to it, or at the root, its children's up transfers.
  std::vector<std::uint32_t> depends_on;
  // The same edge's transfer of the previous chunk: a connection moves one chunk at a time.
  std::optional<std::uint32_t> after;
};

// Every transfer of the plan, channel by channel, loop by loop: the reduce's up transfers in
// reduce order, then the broadcast's down transfers from the root outwards.
std::vector<TreeTransfer> tree_transfers(const TreePlan& plan);

}  // namespace railsim::models
