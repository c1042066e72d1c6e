// File: tests/models/collective/tree_run_test.cpp
// Tree AllReduce on preset systems: closed forms derived by hand at large sizes, NCCL's latency
// floor at small ones, the two executions against each other, and the tuner's choice.
#include "collective_testbed.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <iostream>
#include <optional>
#include <string>

namespace railsim::models {
namespace {

using testing::CollectiveBed;
using testing::kGen5GBps;
using testing::seconds;

TEST(TreeRun, FourSingleGpuNodesMoveTwiceTheBufferThroughTheBusiestNic) {
  // 4 dgx-h100 nodes x 1 GPU, NCCL's 16 channels: the first 8 run tree 1 (0 -> 2 -> {1, 3}), the
  // other 8 tree 2 (3 -> 1 -> {2, 0}); each edge carries its channel's S/16 both ways. Node 2
  // sends on 3 edges of each tree-1 channel (up to 0, down to 1 and 3) and 1 of each tree-2
  // channel, node 1 the mirror image: with equal rates r per channel, 32 r = 49.15 GB/s on its
  // GPU-NIC path (1.54 GB/s, under the channel's cap of perChMaxTreeBw 36 x 8 search channels /
  // 16 / 2 directions = 9 GB/s), so each channel moves S/16 at 49.15/32: t = 2 S / 49.15 GB/s =
  // 43.7 ms for 1 GiB. The fill (a few chunks of 512 KiB, 4 x 14 us of NET hop latency, 8.4 us
  // base) adds well under 1%. busbw = S/t x 2 x 3/4
  // = 36.9 GB/s, against the ring's here (each rank sends 2 x 3/4 S = 1.5 S at 49.15 GB/s:
  // 32.77 ms, plus 64 loops x 6 steps - 1 = 383 posts of 3 us between the nodes, 1.15 ms: busbw
  // 47.5 GB/s): trees trade bandwidth for latency beyond two nodes.
  CollectiveBed bed(4, 1);
  const CollectiveResult r = bed.run(CollectiveOp::kAllReduce, sim::gib(1), Algorithm::kTree,
                                     Protocol::kSimple, std::nullopt);
  EXPECT_EQ(r.algorithm, Algorithm::kTree);
  const double expected = 2.0 * 1073741824.0 / (kGen5GBps * 1e9);
  EXPECT_NEAR(seconds(r.time), expected, 0.01 * expected);
  EXPECT_NEAR(r.busbw_GBps, kGen5GBps * 0.75, 0.01 * kGen5GBps * 0.75);
  const CollectiveResult ring =
      bed.run(CollectiveOp::kAllReduce, sim::gib(1), Algorithm::kRing, Protocol::kSimple, 2);
  const double ring_time = 1.5 * 1073741824.0 / (kGen5GBps * 1e9) + 383 * 3e-6;
  const double ring_bus = 1.5 * 1073741824.0 / ring_time / 1e9;
  EXPECT_NEAR(ring.busbw_GBps, ring_bus, 0.01 * ring_bus);
}

TEST(TreeRun, OneNodeChainMovesWhatARingMoves) {
  // 1 node x 8 GPUs, NCCL's 24 channels: each chain starts at GPU c mod 8; a middle GPU sends up
  // and down (2 S/24 per channel), head and tail one way each, so over 8 channels a GPU port
  // sends (6 x 2 + 1 + 1) S/24 and over all 24, 1.75 S: the ring's 2 x 7/8 S at the 370 GB/s
  // port. Each edge's cap (perChMaxTreeBw 38.7 x 12 search channels / 24 / 2 = 9.7 GB/s) leaves
  // the port the bottleneck. 8 GiB keeps the 13-hop fill of 512 KiB chunks (13 x (54 us at that
  // cap + 4 us of NVLink hop latency) = 0.75 ms) under 2% of the 40.6 ms.
  CollectiveBed bed(1, 8);
  const CollectiveResult r = bed.run(CollectiveOp::kAllReduce, sim::gib(8), Algorithm::kTree,
                                     Protocol::kSimple, std::nullopt, Execution::kPipelined);
  const double drain = 1.75 * 8.0 * 1073741824.0 / (testing::kH100PortGBps * 1e9);
  EXPECT_GE(seconds(r.time), drain);
  EXPECT_LT(seconds(r.time), 1.02 * drain);
}

TEST(TreeRun, SmallAllReduceTakesNcclsTreeLatencyFloor) {
  // 8 B, Simple, NCCL's Tree latencies (nccl:src/graph/tuning.cc): base 8.4 us, NVLink hop 4.0, NET
  // hop 14. One node: up the 7-hop chain and down again, 8.4 + 14 x 4.0 = 64.4 us (NVLink ports
  // add no latency). Four nodes (depth 2): a leaf node's chain up (7 x 4.0), two node hops up,
  // two down, its chain down: 8.4 + 2 x (7 x 4.0 + 2 x 14) = 120.4 us, plus the four network
  // paths' own latency: NIC processing 632 ns at each end and cables and a leaf (the 1.27 us of
  // ib_write_lat, docs/hardware.md): at most 1.3 us each.
  CollectiveBed one(1, 8);
  const CollectiveResult r1 =
      one.run(CollectiveOp::kAllReduce, sim::bytes(8), Algorithm::kTree, Protocol::kSimple, 1);
  EXPECT_GE(seconds(r1.time), 64.4e-6);
  EXPECT_LT(seconds(r1.time), 64.5e-6);
  CollectiveBed four(4, 8);
  const CollectiveResult r4 =
      four.run(CollectiveOp::kAllReduce, sim::bytes(8), Algorithm::kTree, Protocol::kSimple, 1);
  EXPECT_GE(seconds(r4.time), 120.4e-6);
  EXPECT_LT(seconds(r4.time), (120.4 + 4 * 1.3) * 1e-6);
}

TEST(TreeRun, AutoRunsTreeWhereNcclsTunerPicksItAndReportsIt) {
  // 4 dgx-h100 nodes, 32 ranks, 64 KiB. NCCL's latencies (nccl:src/graph/tuning.cc): Ring LL
  // 6.6 + 56 intra steps x max(0.6, 1.0 net overhead) + 6 inter steps x 2.7 = 78.8 us; Tree LL
  // 6.8 + 2 x (7 x 0.6 + 2 x 5.0) = 35.2 us. The bytes add little at 64 KiB, so NCCL's tuner
  // picks a tree, and the result says so.
  CollectiveBed bed(4, 8);
  const CollectiveResult r =
      bed.run(CollectiveOp::kAllReduce, sim::kib(64), std::nullopt, std::nullopt, std::nullopt);
  EXPECT_EQ(r.algorithm, Algorithm::kTree);
  EXPECT_GT(r.busbw_GBps, 0.0);
}

struct TreeCase {
  const char* name;
  int nodes;
  int gpus_per_node;
  std::int64_t size;
  std::optional<int> channels;  // unset: NCCL's count for the size
};

class TreeExecutionsAgree : public ::testing::TestWithParam<TreeCase> {};

// The pipelined run times every chunk of every channel's edges together by processor sharing on
// their links, never below the flow groups' pace (tree_lowering.hpp, slice_sharing.hpp). Where
// chunks are many every edge sends all along; where the fill dominates (a few chunks per channel
// over 8-18 hops, 16 channels) the channels' waves meet on the links only where they overlap,
// and a GPU port that stays busy drains the other channels' chunks while one fills. Both agree
// with the chunk run within 2% (docs/validation.md).
TEST_P(TreeExecutionsAgree, WithinTolerance) {
  const TreeCase& c = GetParam();
  CollectiveBed chunk_bed(c.nodes, c.gpus_per_node);
  CollectiveBed pipe_bed(c.nodes, c.gpus_per_node);
  const auto run = [&](CollectiveBed& bed, Execution execution) {
    return seconds(bed.run(CollectiveOp::kAllReduce, sim::bytes(c.size), Algorithm::kTree,
                           Protocol::kSimple, c.channels, execution)
                       .time);
  };
  const double chunk = run(chunk_bed, Execution::kChunk);
  const double pipelined = run(pipe_bed, Execution::kPipelined);
  // The figures of docs/validation.md's table.
  const std::string times =
      fmt::format("chunk {:.2f} us, pipelined {:.2f} us ({:+.2f}%)", chunk * 1e6, pipelined * 1e6,
                  (pipelined / chunk - 1.0) * 100.0);
  std::cout << "  " << times << "\n";
  EXPECT_NEAR(pipelined, chunk, 0.02 * chunk) << times;
}

// 1 GiB over 2 channels: 1024 chunks of 512 KiB per channel. H: 4 node hops on 4 x 1 GPU
// (fill 0.3%); 2 x 8 GPUs, 7 + 1 + 1 + 7 = 16 (1.5%); 1 x 8 GPUs, 14 (1.3%). Fill-dominated:
// 32 chunks per channel over H = 16 (2 x 8, 256 MiB), 8 over H = 18 (4 x 8, 64 MiB), and 2 over
// H = 8 (10 x 1 GPU at 16 MiB on NCCL's 16 channels).
INSTANTIATE_TEST_SUITE_P(
    Trees,
    TreeExecutionsAgree,
    ::testing::Values(TreeCase{"FourNodesOneGpu1GiB", 4, 1, 1 << 30, 2},
                      TreeCase{"TwoNodes1GiB", 2, 8, 1 << 30, 2},
                      TreeCase{"OneNode1GiB", 1, 8, 1 << 30, 2},
                      TreeCase{"TwoNodes256MiB16Channels", 2, 8, 256 << 20, 16},
                      TreeCase{"FourNodes64MiB16Channels", 4, 8, 64 << 20, 16},
                      TreeCase{"TenNodesOneGpu16MiB", 10, 1, 16 << 20, std::nullopt}),
    [](const ::testing::TestParamInfo<TreeCase>& param_info) { return param_info.param.name; });

// NCCL's LL and LL128 pass each line on as it lands (transfer_dag.hpp): both executions follow
// a chunk down a chain of hops at one transfer plus every hop's latency, rings and trees alike.
struct StreamedCase {
  std::string name;
  int nodes = 1;
  int gpus_per_node = 8;
  CollectiveOp op = CollectiveOp::kAllReduce;
  Algorithm algorithm = Algorithm::kTree;
  Protocol protocol = Protocol::kLl;
  std::int64_t size = 0;
};

class StreamedExecutionsAgree : public ::testing::TestWithParam<StreamedCase> {};

TEST_P(StreamedExecutionsAgree, WithinTolerance) {
  const StreamedCase& c = GetParam();
  CollectiveBed chunk_bed(c.nodes, c.gpus_per_node);
  CollectiveBed pipe_bed(c.nodes, c.gpus_per_node);
  const auto run = [&](CollectiveBed& bed, Execution execution) {
    return seconds(
        bed.run(c.op, sim::bytes(c.size), c.algorithm, c.protocol, std::nullopt, execution).time);
  };
  const double chunk = run(chunk_bed, Execution::kChunk);
  const double pipelined = run(pipe_bed, Execution::kPipelined);
  EXPECT_NEAR(pipelined, chunk, 0.02 * chunk)
      << fmt::format("chunk {:.2f} us, pipelined {:.2f} us", chunk * 1e6, pipelined * 1e6);
}

INSTANTIATE_TEST_SUITE_P(
    Protocols,
    StreamedExecutionsAgree,
    ::testing::Values(StreamedCase{"TreeLlSixteenNodes256KiB", 16, 8, CollectiveOp::kAllReduce,
                                   Algorithm::kTree, Protocol::kLl, 256 << 10},
                      StreamedCase{"TreeLl128SixteenNodes16MiB", 16, 8, CollectiveOp::kAllReduce,
                                   Algorithm::kTree, Protocol::kLl128, 16 << 20},
                      StreamedCase{"RingLl128OneNode16MiB", 1, 8, CollectiveOp::kAllReduce,
                                   Algorithm::kRing, Protocol::kLl128, 16 << 20},
                      StreamedCase{"RingLlTwoNodes1MiB", 2, 8, CollectiveOp::kAllReduce,
                                   Algorithm::kRing, Protocol::kLl, 1 << 20},
                      StreamedCase{"RingLl128TenNodesTwoGpus32MiBReduceScatter", 10, 2,
                                   CollectiveOp::kReduceScatter, Algorithm::kRing, Protocol::kLl128,
                                   32 << 20},
                      StreamedCase{"RingLl128FourNodesBroadcast8MiB", 4, 8,
                                   CollectiveOp::kBroadcast, Algorithm::kRing, Protocol::kLl128,
                                   8 << 20}),
    [](const ::testing::TestParamInfo<StreamedCase>& param_info) { return param_info.param.name; });

TEST(TreeRun, StreamedLlTreeMovesAChunkInOneTransferPlusTheLatencyChain) {
  // 16 x 8 H100, Tree LL at 256 KiB (what NCCL's tuner picks there without its medium-size
  // derating): 16 channels of 16 KiB, one chunk each, every connection capped at llMaxBw / 16
  // channels / 2 (a channel's reduce up and broadcast down share it) = 20.4 / 32 = 0.6375 GB/s.
  // Streamed, the chunk crosses the 22 hops of the deepest path (a chain of 7 up, 4 node levels
  // up and 4 down, 7 down) in one transfer, 16384 / 0.6375e9 = 25.7 us, on top of what 8 B
  // takes (the latency chain): NCCL's own estimate, 256 KiB at 20.4 / 2 = 10.2 GB/s. Store and
  // forward would pay it on every hop.
  CollectiveBed bed(16, 8);
  const auto time_us = [&](std::int64_t bytes) {
    return seconds(bed.run(CollectiveOp::kAllReduce, sim::bytes(bytes), Algorithm::kTree,
                           Protocol::kLl, std::nullopt)
                       .time) *
           1e6;
  };
  const double floor_us = time_us(8);
  EXPECT_NEAR(time_us(256 << 10), floor_us + 25.7, 0.5);
}

}  // namespace
}  // namespace railsim::models
