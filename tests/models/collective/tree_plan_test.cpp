// File: tests/models/collective/tree_plan_test.cpp
// NCCL's double binary tree and the Tree AllReduce plan, without the engine: shapes worked out
// by hand from ncclGetBtree / ncclGetDtree's rules, and the bytes every edge must carry.
#include "models/collective/tree_plan.hpp"

#include "models/collective/non_ring_chunking.hpp"
#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace railsim::models {
namespace {

int depth(const Parents& parents) {
  int deepest = 0;
  for (std::size_t i = 0; i < parents.size(); ++i) {
    int d = 0;
    for (int m = static_cast<int>(i); parents[static_cast<std::size_t>(m)] >= 0;
         m = parents[static_cast<std::size_t>(m)]) {
      ++d;
    }
    deepest = std::max(deepest, d);
  }
  return deepest;
}

TEST(DoubleBinaryTree, EightNodesAreNcclsInOrderTreeAndItsMirror) {
  // Tree 1: a node's parent clears its lowest set bit and sets the next one (falling back to
  // clearing it past the end): 1,3 -> 2; 5,7 -> 6; 2,6 -> 4; 4 -> 0. Tree 2 maps node i to
  // 7 - i: parent2(r) = 7 - parent1(7 - r).
  const auto trees = double_binary_tree(8);
  EXPECT_EQ(trees[0], (Parents{-1, 2, 4, 2, 0, 6, 4, 6}));
  EXPECT_EQ(trees[1], (Parents{1, 3, 1, 7, 5, 3, 5, -1}));
}

TEST(DoubleBinaryTree, OddNodeCountsShiftTheSecondTreeByOne) {
  // Five nodes, tree 1: 1,3 -> 2; 2 -> 4 (2 | 4 < 5); 4 -> 0 (4 | 8 is past the end).
  // Tree 2: parent2(r) = parent1(r - 1) + 1 (mod 5), so node 1 is its root.
  const auto trees = double_binary_tree(5);
  EXPECT_EQ(trees[0], (Parents{-1, 2, 4, 2, 0}));
  EXPECT_EQ(trees[1], (Parents{1, -1, 3, 0, 3}));
}

TEST(DoubleBinaryTree, NoNodeIsInteriorInBothTreesAndDepthIsLog2) {
  // An in-order tree over 2^k nodes: the root's one child heads a complete tree of 2^k - 1
  // nodes, depth k - 1, so depth k. Mirroring keeps it; interior nodes are even in tree 1 and
  // odd in tree 2.
  for (int k = 1; k <= 6; ++k) {
    const int nodes = 1 << k;
    const auto trees = double_binary_tree(nodes);
    EXPECT_EQ(depth(trees[0]), k) << nodes;
    EXPECT_EQ(depth(trees[1]), k) << nodes;
    std::vector<int> interior(static_cast<std::size_t>(nodes), 0);
    for (const Parents& tree : trees) {
      std::vector<bool> has_child(static_cast<std::size_t>(nodes), false);
      for (const int parent : tree) {
        if (parent >= 0) {
          has_child[static_cast<std::size_t>(parent)] = true;
        }
      }
      for (int m = 0; m < nodes; ++m) {
        interior[static_cast<std::size_t>(m)] += has_child[static_cast<std::size_t>(m)] ? 1 : 0;
      }
    }
    for (int m = 0; m < nodes; ++m) {
      EXPECT_LE(interior[static_cast<std::size_t>(m)], 1) << "node " << m << " of " << nodes;
    }
  }
  EXPECT_THROW(double_binary_tree(0), sim::InputError);
}

TEST(RankTree, ChainsStartAtTheHeadAndHeadsLinkNodes) {
  // 2 nodes x 4 GPUs, head GPU 1: node 0's chain is ranks 1, 2, 3, 0 and node 1's 5, 6, 7, 4;
  // tree 1 over two nodes is 0 -> 1, so rank 5 (node 1's head) hangs under rank 1, the root.
  const Communicator comm{2, 4};
  const RankTree tree = rank_tree(comm, double_binary_tree(2)[0], 1);
  EXPECT_EQ(tree.root, 1);
  EXPECT_EQ(tree.parent, (Parents{3, -1, 1, 2, 7, 1, 5, 6}));
  EXPECT_EQ(tree.children[1], (std::vector<int>{2, 5}));  // chain successor first
  EXPECT_EQ(tree.reduce_order.back(), 1);
}

// 4 nodes x 8 GPUs, 16 channels (8 per tree), 16 MiB: 1 MiB per channel, two 512 KiB chunks.
TreePlan four_node_plan() {
  return make_tree_plan(Protocol::kSimple, sim::mib(16), Communicator{4, 8}, 16);
}

TEST(TreePlan, EveryNonRootNodeSendsHalfTheBufferUpAndGetsHalfDownPerTree) {
  // Each tree carries the 8 channels of its half: S / 2 = 8 MiB. A node that is not its tree's
  // root sends all of it to its parent node once (the reduced partial sums) and receives all of
  // it once (the result); the root node only receives up and sends down.
  const TreePlan plan = four_node_plan();
  const Communicator& comm = plan.comm;
  std::map<std::pair<int, int>, std::int64_t> up_sent;  // (tree, node)
  std::map<std::pair<int, int>, std::int64_t> down_received;
  for (const TreeTransfer& t : tree_transfers(plan)) {
    if (comm.node_of(t.src) == comm.node_of(t.dst)) {
      continue;
    }
    const int tree = plan.tree_index[static_cast<std::size_t>(t.channel)];
    if (t.up) {
      up_sent[{tree, comm.node_of(t.src)}] += t.bytes.count;
    } else {
      down_received[{tree, comm.node_of(t.dst)}] += t.bytes.count;
    }
  }
  const auto node_trees = double_binary_tree(4);
  for (int tree = 0; tree < 2; ++tree) {
    for (int m = 0; m < 4; ++m) {
      const bool root = node_trees[static_cast<std::size_t>(tree)][static_cast<std::size_t>(m)] < 0;
      const std::int64_t expected = root ? 0 : sim::mib(8).count;
      EXPECT_EQ(up_sent[std::pair(tree, m)], expected) << "tree " << tree << " node " << m;
      EXPECT_EQ(down_received[std::pair(tree, m)], expected) << "tree " << tree << " node " << m;
    }
  }
}

TEST(TreePlan, EveryEdgeCarriesItsChannelOnceEachWay) {
  // Per channel, each of the 31 non-root ranks' edges carries the channel's 1 MiB up and down,
  // in 512 KiB chunks (Simple: one 512 KiB step per chunk): 16 x 2 loops x 62 transfers.
  const TreePlan plan = four_node_plan();
  EXPECT_EQ(plan.chunk, sim::kib(512));
  const std::vector<TreeTransfer> transfers = tree_transfers(plan);
  EXPECT_EQ(static_cast<std::int64_t>(transfers.size()), plan.transfer_count());
  EXPECT_EQ(transfers.size(), 16u * 2u * 62u);
  std::map<std::tuple<int, int, bool>, std::int64_t> edge_bytes;
  for (const TreeTransfer& t : transfers) {
    edge_bytes[{t.channel, t.rank, t.up}] += t.bytes.count;
  }
  EXPECT_EQ(edge_bytes.size(), 16u * 62u);
  for (const auto& [edge, bytes] : edge_bytes) {
    EXPECT_EQ(bytes, sim::mib(1).count);
  }
}

TEST(TreePlan, AParentsReduceWaitsForAllItsChildren) {
  // Channel 0 runs tree 1 (0 -> 2 -> {1, 3} over nodes) with heads on GPU 0: node 2's head
  // (rank 16) has its chain successor (17) and the heads of nodes 1 and 3 (8, 24) as children,
  // so its up transfer waits for three; the root (rank 0) sends down once its chain child (1)
  // and node 2's head have sent up.
  const TreePlan plan = four_node_plan();
  const std::vector<TreeTransfer> transfers = tree_transfers(plan);
  const auto find = [&](int rank, bool up, int loop) {
    for (const TreeTransfer& t : transfers) {
      if (t.channel == 0 && t.rank == rank && t.up == up && t.loop == loop) {
        return t;
      }
    }
    ADD_FAILURE() << "no transfer for rank " << rank;
    return TreeTransfer{};
  };
  const TreeTransfer head_up = find(16, true, 1);
  EXPECT_EQ(head_up.dst, 0);
  std::vector<int> senders;
  for (const std::uint32_t d : head_up.depends_on) {
    const TreeTransfer& dep = transfers[d];
    EXPECT_TRUE(dep.up);
    EXPECT_EQ(dep.loop, 1);
    senders.push_back(dep.src);
  }
  EXPECT_EQ(senders, (std::vector<int>{17, 8, 24}));
  ASSERT_TRUE(head_up.after.has_value());
  EXPECT_EQ(transfers[*head_up.after].loop, 0);
  const TreeTransfer root_down = find(16, false, 0);
  EXPECT_EQ(root_down.src, 0);
  EXPECT_EQ(root_down.depends_on.size(), 2u);
  const TreeTransfer forwarded = find(8, false, 0);  // node 1's head gets it from node 2's
  ASSERT_EQ(forwarded.depends_on.size(), 1u);
  EXPECT_EQ(transfers[forwarded.depends_on[0]].dst, 16);
}

TEST(NonRingChunking, TreeTakesOneStepAndNvlsShrinksForSmallCalls) {
  // Tree: one 512 KiB Simple step, one 32 KiB LL step of payload (nccl:src/include/collectives.h).
  EXPECT_EQ(tree_chunk(Protocol::kSimple, sim::gib(1), 16, 4, 8), sim::kib(512));
  EXPECT_EQ(tree_chunk(Protocol::kLl, sim::gib(1), 16, 4, 8), sim::kib(32));
  // LL128 on 4 nodes x 8: nsteps = 1 + 2 + 0.8 = 3.8; 1 GiB over 16 channels of 614,400 wire
  // bytes is 109 chunks, above 3.8 x 64 / 8 = 30.4: no halving, 576,000 B of payload.
  EXPECT_EQ(tree_chunk(Protocol::kLl128, sim::gib(1), 16, 4, 8), sim::bytes(576'000));
  // 16 MiB: 1, 3, then 6 chunks per channel (< 30.4) at 614,400, 307,200, 153,600 wire bytes,
  // each above 131,072, so halved to 76,800: 13 chunks, which is >= 3.8 x 16 / 8 = 7.6, so the
  // second loop stops too. Payload 76,800 x 120 / 128 = 72,000.
  EXPECT_EQ(tree_chunk(Protocol::kLl128, sim::mib(16), 16, 4, 8), sim::bytes(72'000));
  // NVLS, 16 channels x 8 heads = 128 concurrent operations: 128 KiB from 64 x 128 x 128 KiB
  // = 1 GiB up; 64 KiB below it, 32 KiB below 8 x 128 x 64 KiB = 64 MiB, 16 KiB below
  // 2 x 128 x 32 KiB = 8 MiB.
  EXPECT_EQ(nvls_chunk(sim::gib(1), 16, 8), sim::kib(128));
  EXPECT_EQ(nvls_chunk(sim::mib(512), 16, 8), sim::kib(64));
  EXPECT_EQ(nvls_chunk(sim::mib(32), 16, 8), sim::kib(32));
  EXPECT_EQ(nvls_chunk(sim::mib(4), 16, 8), sim::kib(16));
}

}  // namespace
}  // namespace railsim::models
