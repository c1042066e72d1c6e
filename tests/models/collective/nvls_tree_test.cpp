// File: tests/models/collective/nvls_tree_test.cpp
// NVLS Tree AllReduce on dgx-h100 nodes: its plan's chunks, trees and bytes per NIC and NVSwitch
// port without the engine.
#include "models/collective/non_ring_chunking.hpp"
#include "models/collective/nvls_tree_plan.hpp"
#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace railsim::models {
namespace {

std::vector<int> all_heads(int gpus) {
  std::vector<int> heads;
  for (int g = 0; g < gpus; ++g) {
    heads.push_back(g);
  }
  return heads;
}

TEST(NvlsTreeChunk, FollowsNcclsRule) {
  // 128 KiB (NCCL_NVLS_CHUNKSIZE), 64 KiB from 4 nodes; 16 channels x 8 heads = 128 concurrent
  // operations: 64 KiB below 4 x 128 x 128 KiB = 64 MiB, 32 KiB below 128 x 64 KiB = 8 MiB.
  EXPECT_EQ(nvls_tree_chunk(sim::gib(4), 16, 8, 2), sim::kib(128));
  EXPECT_EQ(nvls_tree_chunk(sim::mib(64), 16, 8, 2), sim::kib(128));
  EXPECT_EQ(nvls_tree_chunk(sim::mib(32), 16, 8, 2), sim::kib(64));
  EXPECT_EQ(nvls_tree_chunk(sim::mib(8), 16, 8, 3), sim::kib(64));
  EXPECT_EQ(nvls_tree_chunk(sim::mib(4), 16, 8, 3), sim::kib(32));
  EXPECT_EQ(nvls_tree_chunk(sim::gib(4), 16, 8, 4), sim::kib(64));
  EXPECT_EQ(nvls_tree_chunk(sim::mib(8), 16, 8, 16), sim::kib(64));
  EXPECT_EQ(nvls_tree_chunk(sim::bytes(8), 16, 8, 16), sim::kib(32));
}

TEST(NvlsTreePlan, EvenChannelsRunTreeOneAndOddChannelsTreeTwo) {
  // 4 nodes: tree 1 is 0 -> 2 -> {1, 3}, tree 2 its mirror 3 -> 1 -> {2, 0}
  // (nccl:src/graph/connect.cc gives channel c the tree c % 2).
  const NvlsTreePlan plan = make_nvls_tree_plan(sim::mib(16), Communicator{4, 8}, all_heads(8), 16);
  EXPECT_EQ(plan.heads(), 8);
  EXPECT_EQ(plan.chunk, sim::kib(64));
  for (int c = 0; c < 16; ++c) {
    EXPECT_EQ(plan.tree(c).root, c % 2 == 0 ? 0 : 3) << c;
    EXPECT_EQ(plan.tree(c).parent, (c % 2 == 0 ? Parents{-1, 2, 0, 2} : Parents{1, 3, 1, -1})) << c;
  }
}

// Bytes every head's NIC sends and receives ([node][head]) and every GPU's NVSwitch port carries
// up and down ([node][gpu]), summed over the plan's tasks.
struct Loads {
  std::vector<std::vector<std::int64_t>> nic_sent;
  std::vector<std::vector<std::int64_t>> nic_received;
  std::vector<std::vector<std::int64_t>> port_up;
  std::vector<std::vector<std::int64_t>> port_down;
};

Loads loads_of(const NvlsTreePlan& plan) {
  const auto grid = [&](int columns) {
    return std::vector<std::vector<std::int64_t>>(
        static_cast<std::size_t>(plan.nodes()),
        std::vector<std::int64_t>(static_cast<std::size_t>(columns), 0));
  };
  Loads loads{grid(plan.heads()), grid(plan.heads()), grid(plan.comm.gpus_per_node),
              grid(plan.comm.gpus_per_node)};
  const auto cell = [](std::vector<std::vector<std::int64_t>> & g, int row, int column) -> auto& {
    return g[static_cast<std::size_t>(row)][static_cast<std::size_t>(column)];
  };
  for (const NvlsTreeTask& t : nvls_tree_tasks(plan)) {
    const int parent = plan.tree(t.channel).parent[static_cast<std::size_t>(t.node)];
    switch (t.step) {
      case NvlsTreeStep::kUp:
        cell(loads.nic_sent, t.node, t.head) += t.bytes.count;
        cell(loads.nic_received, parent, t.head) += t.bytes.count;
        break;
      case NvlsTreeStep::kDown:
        cell(loads.nic_sent, parent, t.head) += t.bytes.count;
        cell(loads.nic_received, t.node, t.head) += t.bytes.count;
        break;
      case NvlsTreeStep::kReduce:
      case NvlsTreeStep::kStore:
        for (const PortLoad& l :
             nvls_tree_port_loads(t.step, plan.comm.gpus_per_node,
                                  plan.head_gpus[static_cast<std::size_t>(t.head)], t.bytes)) {
          cell(l.to_switch ? loads.port_up : loads.port_down, t.node, l.gpu) += l.bytes.count;
        }
        break;
    }
  }
  return loads;
}

TEST(NvlsTreePlan, FourNodesLoadTheInteriorNodesNicsTwiceAndEveryPortNineEighths) {
  // 16 MiB on 4 x 8 GPUs, 16 channels, 8 heads: 1 MiB per channel, 128 KiB per head. Each piece
  // crosses each tree edge once up and once down, over the two ends' NICs of its head. Tree 1
  // (even channels) is 0 -> 2 -> {1, 3}: node 2 has three edges, 0 one, 1 and 3 one; tree 2 (odd)
  // 3 -> 1 -> {2, 0}: node 1 has three, the others one. So a head's NIC sends, and receives,
  // 8 x (3 + 1) x 128 KiB = 4 MiB = S / 4 on nodes 1 and 2 and 8 x (1 + 1) x 128 KiB = S / 8 on
  // nodes 0 and 3. Inside every node, each GPU's port up carries every head's pieces to the
  // load-reduce (S) and its own pieces to the store (S / 8), and its port down the mirror:
  // 9/8 S each way, as NVLS on one node (nvls_test.cpp).
  const std::int64_t s = sim::mib(16).count;
  const NvlsTreePlan plan =
      make_nvls_tree_plan(sim::bytes(s), Communicator{4, 8}, all_heads(8), 16);
  const Loads loads = loads_of(plan);
  const std::vector<std::int64_t> per_node_nic = {s / 8, s / 4, s / 4, s / 8};
  for (int m = 0; m < 4; ++m) {
    for (int h = 0; h < 8; ++h) {
      EXPECT_EQ(loads.nic_sent[static_cast<std::size_t>(m)][static_cast<std::size_t>(h)],
                per_node_nic[static_cast<std::size_t>(m)])
          << "node " << m << " head " << h;
      EXPECT_EQ(loads.nic_received[static_cast<std::size_t>(m)][static_cast<std::size_t>(h)],
                per_node_nic[static_cast<std::size_t>(m)])
          << "node " << m << " head " << h;
    }
    for (int g = 0; g < 8; ++g) {
      EXPECT_EQ(loads.port_up[static_cast<std::size_t>(m)][static_cast<std::size_t>(g)], s * 9 / 8);
      EXPECT_EQ(loads.port_down[static_cast<std::size_t>(m)][static_cast<std::size_t>(g)],
                s * 9 / 8);
    }
  }
}

TEST(NvlsTreePlan, TwoNodesLoadEveryNicWithAnEighthEachWay) {
  // 2 nodes: each tree is one edge (0 -> 1, then 1 -> 0), so every head's NIC sends and receives
  // its S / 8 once; the ports carry 9/8 S as on 4 nodes. 16 MiB is under 64 MiB, so 64 KiB
  // chunks: 2 loops of 8 heads x 64 KiB per channel's 1 MiB.
  const std::int64_t s = sim::mib(16).count;
  const NvlsTreePlan plan =
      make_nvls_tree_plan(sim::bytes(s), Communicator{2, 8}, all_heads(8), 16);
  EXPECT_EQ(plan.chunk, sim::kib(64));
  const Loads loads = loads_of(plan);
  for (int m = 0; m < 2; ++m) {
    for (int h = 0; h < 8; ++h) {
      EXPECT_EQ(loads.nic_sent[static_cast<std::size_t>(m)][static_cast<std::size_t>(h)], s / 8);
      EXPECT_EQ(loads.nic_received[static_cast<std::size_t>(m)][static_cast<std::size_t>(h)],
                s / 8);
    }
    for (int g = 0; g < 8; ++g) {
      EXPECT_EQ(loads.port_up[static_cast<std::size_t>(m)][static_cast<std::size_t>(g)], s * 9 / 8);
      EXPECT_EQ(loads.port_down[static_cast<std::size_t>(m)][static_cast<std::size_t>(g)],
                s * 9 / 8);
    }
  }
  // Per piece: 2 reduces, 2 stores, 1 up, 1 down; 16 channels x 2 loops x 8 heads pieces.
  EXPECT_EQ(plan.transfer_count(), 16 * 2 * 8 * 6);
  EXPECT_EQ(static_cast<std::int64_t>(nvls_tree_tasks(plan).size()), plan.transfer_count());
}

TEST(NvlsTreePlan, TheRootStoresWhatItReducedAndTheOthersWhatCameDown) {
  // 2 nodes, channel 0 (tree 1: node 1 under node 0), 64 B: one loop of 8 heads' 8 B pieces.
  // Head 0's tasks come first: reduce 0, reduce 1, up 1, down 1, store 0, store 1.
  const NvlsTreePlan plan =
      make_nvls_tree_plan(sim::bytes(64 * 16), Communicator{2, 8}, all_heads(8), 16);
  const std::vector<NvlsTreeTask> tasks = nvls_tree_tasks(plan);
  ASSERT_GE(tasks.size(), 6u);
  EXPECT_EQ(tasks[2].step, NvlsTreeStep::kUp);
  EXPECT_EQ(tasks[2].depends_on, (std::vector<std::uint32_t>{1}));  // node 1's reduce
  EXPECT_EQ(tasks[3].step, NvlsTreeStep::kDown);
  EXPECT_EQ(tasks[3].depends_on, (std::vector<std::uint32_t>{0, 2}));  // the root's reduce + up
  EXPECT_EQ(tasks[4].step, NvlsTreeStep::kStore);
  EXPECT_EQ(tasks[4].node, 0);
  EXPECT_EQ(tasks[4].depends_on, (std::vector<std::uint32_t>{0, 2}));
  EXPECT_EQ(tasks[5].depends_on, (std::vector<std::uint32_t>{3}));  // node 1 stores what came down
  EXPECT_THROW(make_nvls_tree_plan(sim::mib(1), Communicator{1, 8}, all_heads(8), 16),
               sim::InputError);
  EXPECT_THROW(make_nvls_tree_plan(sim::mib(1), Communicator{2, 8}, {3}, 16), sim::InputError);
}

}  // namespace
}  // namespace railsim::models
