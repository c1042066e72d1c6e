// File: tests/models/collective/nvls_tree_test.cpp
// NVLS Tree AllReduce on dgx-h100 nodes: its plan's chunks, trees and bytes per NIC and NVSwitch
// port without the engine; its run against closed forms at 8 B and 4 GiB, the two executions
// against each other, the tuner's choice, and what NCCL would not run.
#include "collective_testbed.hpp"

#include "models/collective/non_ring_chunking.hpp"
#include "models/collective/nvls_tree_plan.hpp"
#include "models/hardware/node_presets.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace railsim::models {
namespace {

using testing::CollectiveBed;
using testing::kGen5GBps;
using testing::kH100PortGBps;
using testing::seconds;

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

// NCCL's per-channel cap as the run applies it (collective_run.cpp): perChMaxNVLSTreeBw is the bus
// bandwidth of a channel of NCCL's NVLS graph, which has one per head (8 on dgx-h100), so the whole
// AllReduce moves at most 8 x the cap in bus terms, 8 x cap x n / (2(n-1)) in algorithm bandwidth:
// NCCL's own model bandwidth (nccl_tuning.cpp).
double cap_algbw_GBps(double cap_GBps, int ranks) {
  return 8.0 * cap_GBps * ranks / (2.0 * (ranks - 1));
}

TEST(NvlsTreeRun, FourNodesAt4GiBAreBoundByNcclsNvlsTreeCap) {
  // 4 GiB on 4 dgx-h100 nodes, NCCL's 16 channels and 8 heads. What each limit allows:
  //   the cap, 45.5 GB/s per head from 3 nodes: algbw 8 x 45.5 x 32/62 = 187.9 GB/s, 22.86 ms;
  //   an interior node's head NIC (plan test above): S / 4 each way over its Gen5 x16 GPU-NIC
  //     path, 49.15 GB/s: 1 GiB / 49.15 GB/s = 21.85 ms (algbw 196.6);
  //   every NVSwitch port: 9/8 S at 370 x 0.85 = 314.5 GB/s: 15.36 ms.
  // So the cap bounds it, 4.4% below the NICs: busbw <= 8 x 45.5 = 364.0 GB/s. The fill, the first
  // 64 KiB pieces' way up two levels and down again at the cap's pace and the last ones' NCCL
  // latencies (25 us and 4 x 20.9 us), adds 0.28 ms: 23.14 ms, 1.2%.
  CollectiveBed bed(4, 8);
  const CollectiveResult r = bed.run(CollectiveOp::kAllReduce, sim::gib(4), Algorithm::kNvlsTree,
                                     Protocol::kSimple, std::nullopt, Execution::kPipelined);
  EXPECT_EQ(r.algorithm, Algorithm::kNvlsTree);
  EXPECT_EQ(r.channels, 16);
  const double s = 4294967296.0;
  const double capped = s / (cap_algbw_GBps(45.5, 32) * 1e9);
  EXPECT_GT(capped, s / 4.0 / (kGen5GBps * 1e9));
  EXPECT_GT(capped, 9.0 / 8.0 * s / (kH100PortGBps * 0.85 * 1e9));
  EXPECT_GE(seconds(r.time), capped);
  EXPECT_LT(seconds(r.time), 1.02 * capped);
  EXPECT_NEAR(r.busbw_GBps, 364.0, 0.02 * 364.0);
}

TEST(NvlsTreeRun, TwoNodesAt4GiBAreBoundByNcclsNvlsTreeCap) {
  // 2 nodes: the cap is 57.7 GB/s per head, algbw 8 x 57.7 x 16/30 = 246.2 GB/s: 17.45 ms; the
  // NVSwitch ports allow 279.6 (9/8 S at 314.5 GB/s: 15.36 ms) and each head's NIC, moving S / 8
  // each way, 393.2 (10.9 ms). busbw <= 8 x 57.7 = 461.6 GB/s; the fill of 128 KiB pieces adds
  // 1.2%.
  CollectiveBed bed(2, 8);
  const CollectiveResult r = bed.run(CollectiveOp::kAllReduce, sim::gib(4), Algorithm::kNvlsTree,
                                     Protocol::kSimple, std::nullopt, Execution::kPipelined);
  const double s = 4294967296.0;
  const double capped = s / (cap_algbw_GBps(57.7, 16) * 1e9);
  EXPECT_GT(capped, 9.0 / 8.0 * s / (kH100PortGBps * 0.85 * 1e9));
  EXPECT_GE(seconds(r.time), capped);
  EXPECT_LT(seconds(r.time), 1.02 * capped);
  EXPECT_NEAR(r.busbw_GBps, 461.6, 0.02 * 461.6);
}

TEST(NvlsTreeRun, SmallAllReduceTakesNcclsNvlsTreeLatency) {
  // 8 B: one piece's chain. Its load-reduce (half of NCCL's 25 us NVLink NVLS Tree hop), the ups
  // from a leaf to the root and the downs back (20.9 us of NET NVLS Tree hop each, depth 1 on 2
  // nodes, 2 on 4), the leaf's store (the other half): 25 + 2 x 20.9 = 66.8 us on 2 nodes and
  // 25 + 4 x 20.9 = 108.6 us on 4, NCCL's own NVLS Tree latency (base 0 + 25 + 2 log2(nodes) x
  // 20.9, nccl:src/graph/tuning.cc), plus each network path's own latency, at most 1.3 us
  // (tree_run_test.cpp); the NVSwitch ports add none.
  for (const auto& [nodes, levels] : {std::pair{2, 1}, std::pair{4, 2}}) {
    for (const Execution execution : {Execution::kChunk, Execution::kPipelined}) {
      CollectiveBed bed(nodes, 8);
      const CollectiveResult r =
          bed.run(CollectiveOp::kAllReduce, sim::bytes(8), Algorithm::kNvlsTree, std::nullopt,
                  std::nullopt, execution);
      const double floor = (25.0 + 2.0 * levels * 20.9) * 1e-6;
      EXPECT_GE(seconds(r.time), floor) << nodes << " nodes";
      EXPECT_LT(seconds(r.time), floor + 2.0 * levels * 1.3e-6) << nodes << " nodes";
    }
  }
}

struct NvlsTreeCase {
  const char* name;
  int nodes;
  std::int64_t size;
  double uplinks = 0.0;  // 0: the preset's fabric; else rails cabled at random under leaves of
                         // 4 nodes with this oversubscription, so that tree edges share spines
};

// The time of an NVLS Tree AllReduce of `c` run as `execution`.
double nvls_tree_seconds(const NvlsTreeCase& c, Execution execution) {
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = c.nodes;
  if (c.uplinks > 0.0) {
    spec.fabric.rails = RailMapping::kMisaligned;
    spec.fabric.oversubscription = c.uplinks;
    spec.fabric.nodes_per_leaf = 4;
  }
  const System system(spec, network);
  CollectiveRequest request;
  request.size = sim::bytes(c.size);
  request.comm = {c.nodes, 8};
  request.algorithm = Algorithm::kNvlsTree;
  request.protocol = Protocol::kSimple;
  request.execution = execution;
  return seconds(run_collective(system, network, simulator, request).time);
}

class NvlsTreeExecutionsAgree : public ::testing::TestWithParam<NvlsTreeCase> {};

// The chunk run moves every piece's operations and messages as their own flows, max-min shared;
// the pipelined run moves each channel's edges and ports as flow groups and times the pieces by
// slice sharing or the per-step recurrence (nvls_tree_lowering.hpp). On the preset's fabric every
// edge moves at its cap, so both give the same times; where spines are shared (misaligned rails
// at 2:1 and 4:1) they bind, and sharing follows the chunk run within 0.6%.
TEST_P(NvlsTreeExecutionsAgree, WithinTwoPercent) {
  const NvlsTreeCase& c = GetParam();
  const double chunk = nvls_tree_seconds(c, Execution::kChunk);
  const double pipelined = nvls_tree_seconds(c, Execution::kPipelined);
  const std::string times =
      fmt::format("chunk {:.2f} us, pipelined {:.2f} us ({:+.2f}%)", chunk * 1e6, pipelined * 1e6,
                  (pipelined / chunk - 1.0) * 100.0);
  std::cout << "  " << times << "\n";
  EXPECT_NEAR(pipelined, chunk, 0.02 * chunk) << times;
}

INSTANTIATE_TEST_SUITE_P(
    NvlsTrees,
    NvlsTreeExecutionsAgree,
    ::testing::Values(NvlsTreeCase{"TwoNodes4MiB", 2, 4 << 20},
                      NvlsTreeCase{"TwoNodes256MiB", 2, 256 << 20},
                      NvlsTreeCase{"FourNodes16MiB", 4, 16 << 20},
                      NvlsTreeCase{"FourNodes256MiB", 4, 256 << 20},
                      NvlsTreeCase{"EightNodesMisaligned2To1At64MiB", 8, 64 << 20, 2.0},
                      NvlsTreeCase{"EightNodesMisaligned4To1At64MiB", 8, 64 << 20, 4.0}),
    [](const ::testing::TestParamInfo<NvlsTreeCase>& param_info) { return param_info.param.name; });

TEST(NvlsTreeRun, AutoRunsNvlsTreeWhereNcclsTunerPicksIt) {
  // 4 dgx-h100 nodes. NCCL's model (nccl:src/graph/tuning.cc, nccl_tuning.cpp): NVLS Tree Simple
  // 25 + 2 x 2 x 20.9 = 108.6 us and 8 graph channels x min(40 x 0.85 x 7/8 x 2, 48, 45.5) = 364
  // GB/s busbw, so 364 x 32 / 62 = 187.9 GB/s; Ring Simple 282.8 us x 1.4 (the plateau factor)
  // = 395.9 us at 198.2 GB/s; Ring LL128 144.4 us at 151.5; Tree Simple 120.4 us at 144.0 x 0.8
  // and Tree LL128 65.5 us at 116.0 x 0.9 (NCCL's Tree derating at 64 MiB). At 64 MiB NVLS Tree
  // takes 108.6 + 357.2 = 465.8 us against 587.3 (Ring LL128), 702.9 (Tree), 708.3 (Tree LL128)
  // and 734.5 (Ring): NCCL's tuner picks it. Beyond 1.04e9 B (989 MiB) the ring's bandwidth wins
  // it back: at 2 GiB 11,539 us against the ring's 11,231.
  CollectiveBed bed(4, 8);
  const CollectiveResult picked =
      bed.run(CollectiveOp::kAllReduce, sim::mib(64), std::nullopt, std::nullopt, std::nullopt);
  EXPECT_EQ(picked.algorithm, Algorithm::kNvlsTree);
  EXPECT_EQ(picked.protocol, Protocol::kSimple);
  EXPECT_EQ(picked.channels, 16);
  const CollectiveResult large = bed.run(CollectiveOp::kAllReduce, sim::gib(2), std::nullopt,
                                         std::nullopt, std::nullopt, Execution::kPipelined);
  EXPECT_EQ(large.algorithm, Algorithm::kRing);
}

TEST(NvlsTreeRun, RejectsWhatNcclWouldNotRun) {
  // NVLS Tree needs SM90+ GPUs on an NVSwitch, several nodes, AllReduce, Simple, and at least two
  // heads (NCCL's NVLS graph has one channel per GPU, so one GPU per node has one).
  CollectiveBed one(1, 8);
  EXPECT_THROW(one.run(CollectiveOp::kAllReduce, sim::mib(1), Algorithm::kNvlsTree, {}, {}),
               sim::InputError);
  CollectiveBed a100(2, 8, "dgx-a100");
  EXPECT_THROW(a100.run(CollectiveOp::kAllReduce, sim::mib(1), Algorithm::kNvlsTree, {}, {}),
               sim::InputError);
  CollectiveBed two(2, 8);
  EXPECT_THROW(two.run(CollectiveOp::kAllGather, sim::mib(1), Algorithm::kNvlsTree, {}, {}),
               sim::InputError);
  EXPECT_THROW(
      two.run(CollectiveOp::kAllReduce, sim::mib(1), Algorithm::kNvlsTree, Protocol::kLl128, {}),
      sim::InputError);
  CollectiveBed lone(2, 1);
  EXPECT_THROW(lone.run(CollectiveOp::kAllReduce, sim::mib(1), Algorithm::kNvlsTree, {}, {}),
               sim::InputError);
}

}  // namespace
}  // namespace railsim::models
