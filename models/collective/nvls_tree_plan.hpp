// File: models/collective/nvls_tree_plan.hpp
// NvlsTreePlan: NCCL's NVLS Tree AllReduce on NVSwitch nodes as data, independent of the links
// that run it (nccl:src/device/all_reduce.h, src/graph/connect.cc, src/enqueue.cc).
//
// Every node has the same NVLS heads: one GPU per NIC that NCCL's NVLS graph uses (on a DGX H100
// all eight). Each channel carries size / channels; per loop every head owns one piece of it (a
// chunk, or a heads-th of what is left: NvlsPlan's rule with the heads in place of the ranks),
// and each piece is reduced and broadcast on its own:
//   reduce  in every node the head's multimem.ld_reduce: the NVSwitch reads the piece from every
//           GPU of the node and returns the sum to the head (nvls_operation's ReduceScatter half);
//   up      the head sends that sum, plus what its child nodes' heads sent it, to its parent
//           node's head of the same index, over its own NIC;
//   down    the root's head, holding the whole sum, sends it to its children's heads, which pass
//           it on to theirs;
//   store   in every node, once its head holds the result (the root at once, the others from
//           their parent), the head's multimem.st: it writes the piece once and the NVSwitch
//           multicasts it to every GPU of the node (nvls_operation's AllGather half).
// The trees over nodes are NCCL's double binary tree (tree_plan.hpp), tree 1 on the even channels
// and tree 2 on the odd ones: NCCL's connectNvls gives channel c the tree c % 2 (the Tree
// algorithm instead gives its duplicated second half of the channels tree 2).
//
// So per AllReduce each GPU port carries S (G + 1) / G each way as on one node with G heads, and
// each head's NIC S / (2 heads) per tree edge it has (a node interior in one tree has three edges
// there, one in the other).
#pragma once

#include "models/collective/communicator.hpp"
#include "models/collective/nvls_plan.hpp"
#include "models/collective/tree_plan.hpp"
#include "sim/bytes.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace railsim::models {

struct NvlsTreePlan {
  Communicator comm;
  std::vector<int> head_gpus;          // the local GPU of each head, the same on every node
  std::array<RankTree, 2> node_trees;  // over node indices: double_binary_tree's two trees
  int channels = 1;
  sim::Bytes size;  // the AllReduce buffer
  sim::Bytes chunk;

  int heads() const { return static_cast<int>(head_gpus.size()); }

  int nodes() const { return comm.nodes; }

  // The node tree of channel c: tree 1 on even channels, tree 2 on odd ones.
  const RankTree& tree(int channel) const {
    return node_trees[static_cast<std::size_t>(channel % 2)];
  }

  // The payload channel c carries (the first channels one byte more when it does not divide).
  sim::Bytes channel_bytes(int channel) const;

  // Per loop of channel c, the piece each head owns, loop by loop (heads() per loop).
  std::vector<sim::Bytes> loop_pieces(int channel) const;

  // How many tasks nvls_tree_tasks() lists, without listing them.
  std::int64_t transfer_count() const;
};

// Throws sim::InputError unless the communicator has at least 2 nodes, the heads are at least 2
// distinct GPUs of it, channels >= 1 and size >= 0.
NvlsTreePlan make_nvls_tree_plan(sim::Bytes size,
                                 const Communicator& comm,
                                 std::vector<int> head_gpus,
                                 int channels);

enum class NvlsTreeStep { kReduce, kUp, kDown, kStore };

// One step of one piece: an NVSwitch operation in a node (reduce, store) or a message over the
// tree edge between a node and its parent (up, down) of the piece's head.
struct NvlsTreeTask {
  NvlsTreeStep step = NvlsTreeStep::kReduce;
  int channel = 0;
  int head = 0;  // index into head_gpus
  int node = 0;  // where the operation runs; for up and down, the edge's lower end
  int loop = 0;
  sim::Bytes bytes;
  // What must be held first: up, the node's reduce and its children's up; down and store, the
  // node's down (at the root and its children: the root's reduce and its children's up).
  std::vector<std::uint32_t> depends_on;
  // The same step's task of the previous loop (same channel, head and node): a warp group or a
  // connection handles one piece at a time.
  std::optional<std::uint32_t> after;
};

// Every task of the plan, channel by channel, loop by loop, head by head: the reduces, the ups
// in reduce order, the downs from the root outwards, the stores.
std::vector<NvlsTreeTask> nvls_tree_tasks(const NvlsTreePlan& plan);

// The NVSwitch port loads of a reduce or store of `bytes` by head GPU `head_gpu` in a node of
// `gpus` GPUs (nvls_operation's ReduceScatter and AllGather halves).
std::vector<PortLoad> nvls_tree_port_loads(NvlsTreeStep step,
                                           int gpus,
                                           int head_gpu,
                                           sim::Bytes bytes);

}  // namespace railsim::models
