// File: models/collective/collnet_plan.cpp
// CollNet's trees: chains or stars inside the nodes, hung from the switches of SHARP trees.
#include "models/collective/collnet_plan.hpp"

#include "models/collective/nic_affinity.hpp"
#include "models/collective/non_ring_chunking.hpp"
#include "models/hardware/node_spec.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <map>
#include <utility>
#include <vector>

namespace railsim::models {
namespace {

using sim::at;

// The SHARP trees of a plan, one per head GPU and the NIC it sends through, each built once.
class SharpTrees {
 public:
  SharpTrees(const System& system, const Communicator& comm, std::vector<ReductionTree>& trees)
      : system_(system), comm_(comm), nics_(system, comm), trees_(trees) {}

  // The tree of GPU `head_gpu` of every node through its NIC of `round`: its index.
  int of(int head_gpu, int round) {
    const int nic = nics_.nic(0, head_gpu, round);
    const auto [found, added] =
        index_.try_emplace({head_gpu, nic}, static_cast<int>(trees_.size()));
    if (added) {
      std::vector<Endpoint> members;
      members.reserve(at(comm_.nodes));
      for (int m = 0; m < comm_.nodes; ++m) {
        members.push_back(
            {comm_.system_node(m), nics_.nic(m, head_gpu, round), comm_.system_gpu(head_gpu)});
      }
      // A rail's tree: the heads of one rail share its switches, whatever their GPU.
      trees_.push_back(system_.reduction_tree(
          members, system_.rail_of(members.front().node, members.front().nic)));
    }
    return found->second;
  }

  const CommNics& nics() const { return nics_; }

 private:
  const System& system_;
  const Communicator& comm_;
  CommNics nics_;
  std::vector<ReductionTree>& trees_;
  std::map<std::pair<int, int>, int> index_;
};

// Hangs `tree` (over the ranks, every node's head `head_gpu` at the top of its node) from the
// switches of `sharp`: each head under its leaf, the root switch the tree's root.
void hang_from_switches(RankTree& tree,
                        const Communicator& comm,
                        int head_gpu,
                        const ReductionTree& sharp) {
  const int ranks = comm.ranks();
  const auto vertices = at(ranks + sharp.switches());
  tree.parent.resize(vertices, -1);
  tree.children.resize(vertices);
  for (int k = 1; k < sharp.switches(); ++k) {
    const int up = ranks + sharp.parent[at(k)];
    tree.parent[at(ranks + k)] = up;
    tree.children[at(up)].push_back(ranks + k);
  }
  for (int m = 0; m < comm.nodes; ++m) {
    const int head = comm.rank_of(m, head_gpu);
    const int leaf = ranks + sharp.member_leaf[at(m)];
    tree.parent[at(head)] = leaf;
    tree.children[at(leaf)].push_back(head);
  }
  tree.root = ranks;
  tree.reduce_order = reduce_order(tree);
}

// Every GPU of each node under GPU `head_gpu` of its node.
RankTree star(const Communicator& comm, int head_gpu) {
  RankTree tree;
  tree.parent.assign(at(comm.ranks()), -1);
  tree.children.assign(at(comm.ranks()), {});
  for (int m = 0; m < comm.nodes; ++m) {
    const int head = comm.rank_of(m, head_gpu);
    for (int g = 0; g < comm.gpus_per_node; ++g) {
      if (g != head_gpu) {
        tree.parent[at(comm.rank_of(m, g))] = head;
        tree.children[at(head)].push_back(comm.rank_of(m, g));
      }
    }
  }
  return tree;
}

}  // namespace

TreePlan make_collnet_plan(const System& system,
                           Algorithm algorithm,
                           sim::Bytes size,
                           const Communicator& comm,
                           int channels,
                           int heads) {
  if (channels < 1) {
    throw sim::InputError(fmt::format("collnet plan: {} channels, expected at least 1", channels));
  }
  if (size.count < 0) {
    throw sim::InputError(fmt::format("collnet plan: size {} B, expected >= 0", size.count));
  }
  if (comm.nodes < 2) {
    throw sim::InputError("collnet plan: CollNet reduces across nodes, this has one");
  }
  const bool direct = algorithm == Algorithm::kCollNetDirect;
  if (direct && system.spec().node.nvlink.kind != NvlinkKind::kSwitch) {
    throw sim::InputError(
        fmt::format("collnetdirect needs the GPUs of a node on an NVSwitch; {} has none",
                    system.spec().node.name));
  }
  TreePlan plan;
  plan.comm = comm;
  plan.size = size;
  SharpTrees sharp(system, comm, plan.reduction_trees);
  const std::vector<int> head_gpus = direct ? sharp.nics().heads(heads) : std::vector<int>{};
  const int per_channel = direct ? static_cast<int>(head_gpus.size()) : 1;
  plan.chunk = collnet_chunk(direct, size, channels, per_channel, comm.gpus_per_node);
  for (int c = 0; c < channels; ++c) {
    for (int h = 0; h < per_channel; ++h) {
      const int head_gpu = direct ? head_gpus[at(h)] : c % comm.gpus_per_node;
      RankTree tree =
          direct ? star(comm, head_gpu) : rank_tree(comm, Parents(at(comm.nodes), -1), head_gpu);
      // A head sends through its NICs in turn, channel by channel, as Tree's heads do.
      const int index = sharp.of(head_gpu, c / comm.gpus_per_node);
      hang_from_switches(tree, comm, head_gpu, plan.reduction_trees[at(index)]);
      plan.trees.push_back(std::move(tree));
      plan.tree_index.push_back(0);
      plan.reduction_tree.push_back(index);
    }
  }
  return plan;
}

}  // namespace railsim::models
