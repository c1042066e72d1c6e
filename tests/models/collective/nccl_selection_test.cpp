// File: tests/models/collective/nccl_selection_test.cpp
// NCCL's choice of algorithm, protocol and channels per call against hand calculations from
// nccl:src/graph/tuning.cc and src/enqueue.cc: where the protocols and algorithms cross over, the
// size-dependent terms of its estimate (the ring plateau, the tree derating), the per-call channel
// and thread counts, and the protocols' caps and line formats.
#include "nccl_tuning_testbed.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace railsim::models {
namespace {

using testing::all_algorithms;
using testing::all_protocols;
using testing::choice_at;
using testing::cost_of;
using testing::dgx_a100;
using testing::dgx_h100;
using testing::kTolerance;

TEST(NcclTuning, SelectAlgorithmIsNulloptWhenNothingAllowedIsEnabled) {
  EXPECT_FALSE(select_algorithm(dgx_h100(1), CollectiveOp::kAllGather, 1e6, {Algorithm::kTree},
                                all_protocols));
}

// --- Selection on one H100 node, AllReduce (costs from the worked-example tests above) ---

TEST(NcclTuning, RingProtocolGoesFromLlToLl128At3Point59MB) {
  // LL 15 + S/80571.4, LL128 40.6 + S/189257: equal at S = 25.6 / (1/80571.4 - 1/189257) us x
  // 1000 = 3.592 MB.
  const std::vector<Algorithm> ring = {Algorithm::kRing};
  EXPECT_EQ(choice_at(dgx_h100(1), CollectiveOp::kAllReduce, 3.4e6, ring).protocol, Protocol::kLl);
  EXPECT_EQ(choice_at(dgx_h100(1), CollectiveOp::kAllReduce, 3.8e6, ring).protocol,
            Protocol::kLl128);
}

TEST(NcclTuning, RingProtocolGoesFromLl128ToSimpleAt36Point4MB) {
  // LL128 40.6 + S/189257, Simple 56 + S/205714: equal at 15.4 / (1/189257 - 1/205714) x 1000
  // = 36.43 MB.
  const std::vector<Algorithm> ring = {Algorithm::kRing};
  EXPECT_EQ(choice_at(dgx_h100(1), CollectiveOp::kAllReduce, 35e6, ring).protocol,
            Protocol::kLl128);
  EXPECT_EQ(choice_at(dgx_h100(1), CollectiveOp::kAllReduce, 38e6, ring).protocol,
            Protocol::kSimple);
}

TEST(NcclTuning, DefaultAllReduceGoesFromRingLlToNvlsAt1Point14MB) {
  // Ring LL 15 + S/80571.4, NVLS 25 + S/272000: equal at 10 / (1/80571.4 - 1/272000) x 1000 =
  // 1.145 MB. Tree LL (15.2 + S/43579) is never better than Ring LL; Tree LL128 (31.5 +
  // S/128800) only passes Ring LL at 3.55 MB, after NVLS has.
  const AlgoChoice small = choice_at(dgx_h100(1), CollectiveOp::kAllReduce, 1.1e6, all_algorithms);
  EXPECT_EQ(small.algorithm, Algorithm::kRing);
  EXPECT_EQ(small.protocol, Protocol::kLl);
  const AlgoChoice large = choice_at(dgx_h100(1), CollectiveOp::kAllReduce, 1.2e6, all_algorithms);
  EXPECT_EQ(large.algorithm, Algorithm::kNvls);
  EXPECT_EQ(large.protocol, Protocol::kSimple);
  // NVLS has both the lower latency and the higher bandwidth of Ring Simple: it stays.
  EXPECT_EQ(choice_at(dgx_h100(1), CollectiveOp::kAllReduce, 1e9, all_algorithms).algorithm,
            Algorithm::kNvls);
}

TEST(NcclTuning, MultiNodeRingSimpleAllReduceLatencyPlateausFrom64BytesPerChannelRank) {
  // 16 x H100: 16 comm channels x 128 ranks x 64 B = 131072 B. Below: 1190.0 us; from there on:
  // x 1.4 = 1666.0 us.
  const std::vector<Algorithm> ring = {Algorithm::kRing};
  const std::vector<Protocol> simple = {Protocol::kSimple};
  EXPECT_NEAR(
      choice_at(dgx_h100(16), CollectiveOp::kAllReduce, 131071.0, ring, simple).cost.latency_us,
      1190.0, kTolerance);
  EXPECT_NEAR(
      choice_at(dgx_h100(16), CollectiveOp::kAllReduce, 131072.0, ring, simple).cost.latency_us,
      1666.0, kTolerance);
  // algo_cost leaves the factor out.
  EXPECT_NEAR(cost_of(dgx_h100(16), CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kSimple)
                  .latency_us,
              1190.0, kTolerance);
}

TEST(NcclTuning, TreeAllReduceBandwidthIsDeratedAtMediumSizes) {
  // treeCorrectionFactor (nccl:src/graph/tuning.cc) at log2(bytes / 64): 32 MiB is 2^19 units,
  // Simple's factor there 0.7; LL128's at 4 MiB (2^16) 0.8. 16 x H100: Simple 144 x 0.7 = 100.8,
  // LL128 116 x 0.8 = 92.8 GB/s. Below 64 B (no unit) and from 1 GiB (2^24, past the table) the
  // factor is 1. Rings are not derated.
  const std::vector<Algorithm> tree = {Algorithm::kTree};
  const std::vector<Algorithm> ring = {Algorithm::kRing};
  const std::vector<Protocol> simple = {Protocol::kSimple};
  const std::vector<Protocol> ll128 = {Protocol::kLl128};
  const TuningTopology sixteen = dgx_h100(16);
  EXPECT_NEAR(choice_at(sixteen, CollectiveOp::kAllReduce, 32.0 * (1 << 20), tree, simple)
                  .cost.bandwidth_GBps,
              100.8, 1e-6);
  EXPECT_NEAR(choice_at(sixteen, CollectiveOp::kAllReduce, 4.0 * (1 << 20), tree, ll128)
                  .cost.bandwidth_GBps,
              92.8, 1e-6);
  EXPECT_NEAR(choice_at(sixteen, CollectiveOp::kAllReduce, 32.0, tree, simple).cost.bandwidth_GBps,
              144.0, kTolerance);
  EXPECT_NEAR(choice_at(sixteen, CollectiveOp::kAllReduce, 1024.0 * (1 << 20), tree, simple)
                  .cost.bandwidth_GBps,
              144.0, kTolerance);
  EXPECT_NEAR(choice_at(sixteen, CollectiveOp::kAllReduce, 32.0 * (1 << 20), ring, simple)
                  .cost.bandwidth_GBps,
              cost_of(sixteen, CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kSimple)
                  .bandwidth_GBps,
              kTolerance);
}

TEST(NcclTuning, TenNodesOfOneGpuRunTheAllReduceAt32MiBOnTheRing) {
  // 10 x 1 H100 (the shared cluster01 log ran this at ring speed: 1405 us). One GPU per node
  // reaches one NIC (tuning_topology, collective_run.cpp), whose channels carry 48 GB/s.
  // Ring LL128: 14 + 18 x 8.5 (ppn 1: Tree's NET latency) = 167 us; busBw 48 x 0.92 = 44.2,
  // algbw x 10/18 = 24.5 GB/s: 167 + 1367.7 = 1534.7 us, the fastest (NCCL's estimate of what
  // measured 1405). Ring Simple: 260.4 x 1.4 = 364.6 us + S / 26.7 GB/s = 1622.9 us; Tree LL128
  // 65 us + S / (17.6 x 0.9) = 2183.9 us; Tree Simple 92.4 us + S / (18.8 x 0.7) = 2646.5 us.
  TuningTopology topology = dgx_h100(10);
  topology.gpus_per_node = 1;
  topology.nics_per_node = 1;
  const AlgoChoice choice =
      choice_at(topology, CollectiveOp::kAllReduce, 33554432.0, all_algorithms, all_protocols);
  EXPECT_EQ(choice.algorithm, Algorithm::kRing);
  EXPECT_EQ(choice.protocol, Protocol::kLl128);
  EXPECT_NEAR(choice.cost.time_us(33554432.0), 1534.7, 0.1);
}

TEST(NcclTuning, VoltaRingPlateauIsOnePointNine) {
  // 2 nodes of 8 V100 (6 x 20 = 120 GB/s NVLink), 4 EDR NICs at 12.5 GB/s: speeds up to 12.5:
  // 12 -> 4 NICs x 1 = 4 channels (chain 4 x 12 x 7/8 = 42 <= 120) = 48, not beaten; no dup
  // (12 < 25). Comm 8 channels x 16 ranks x 64 B = 8192 B.
  // Latency: nsteps 30, nInter 2: 8.4 + 28 x max(3.4, 3.0) + 2 x 14 = 131.6 us; x 1.9 = 250.04.
  TuningTopology volta;
  volta.arch = GpuArch::kVolta;
  volta.nodes = 2;
  volta.intra_bw_GBps = 120.0;
  volta.nvswitch = false;
  volta.nics_per_node = 4;
  volta.nic_bw_GBps = 12.5;
  EXPECT_EQ(comm_channels(volta, Algorithm::kRing), 8);
  const std::vector<Algorithm> ring = {Algorithm::kRing};
  const std::vector<Protocol> simple = {Protocol::kSimple};
  EXPECT_NEAR(choice_at(volta, CollectiveOp::kAllReduce, 8191.0, ring, simple).cost.latency_us,
              131.6, kTolerance);
  EXPECT_NEAR(choice_at(volta, CollectiveOp::kAllReduce, 8192.0, ring, simple).cost.latency_us,
              131.6 * 1.9, kTolerance);
}

// --- Channels and threads per call ---

TEST(NcclTuning, TrimmedChannelsFollowThePerThreadThresholds) {
  // 64 KiB over 24 ring channels, 8 ranks:
  // Simple: nc x 512 x 64 B = nc x 32 KiB -> 2 channels carry it.
  EXPECT_EQ(trimmed_channels(24, Algorithm::kRing, Protocol::kSimple, 8, 65536.0), 2);
  // LL: nc x 512 x 8 B x 8 ranks = nc x 32 KiB -> 2.
  EXPECT_EQ(trimmed_channels(24, Algorithm::kRing, Protocol::kLl, 8, 65536.0), 2);
  // LL128: nc x 640 x 8 B = nc x 5120 B -> 65536 < 13 x 5120 = 66560, not < 12 x 5120 -> 12.
  EXPECT_EQ(trimmed_channels(24, Algorithm::kRing, Protocol::kLl128, 8, 65536.0), 12);
  // Tree LL does not multiply by ranks: nc x 4096 B -> 16.
  EXPECT_EQ(trimmed_channels(24, Algorithm::kTree, Protocol::kLl, 8, 65536.0), 16);
  // A small message keeps one channel; large ones keep all.
  EXPECT_EQ(trimmed_channels(24, Algorithm::kRing, Protocol::kSimple, 8, 1024.0), 1);
  EXPECT_EQ(trimmed_channels(24, Algorithm::kRing, Protocol::kSimple, 8, 1e9), 24);
  // NVLS keeps its fixed count.
  EXPECT_EQ(trimmed_channels(16, Algorithm::kNvls, Protocol::kSimple, 8, 1024.0), 16);
}

TEST(NcclTuning, ThreadCountsAddTheSyncWarpForRingSimple) {
  EXPECT_EQ(thread_count(Algorithm::kRing, Protocol::kSimple), 512 + 32);
  EXPECT_EQ(thread_count(Algorithm::kRing, Protocol::kLl), 512);
  EXPECT_EQ(thread_count(Algorithm::kRing, Protocol::kLl128), 640);
  EXPECT_EQ(thread_count(Algorithm::kTree, Protocol::kSimple), 640);
  EXPECT_EQ(thread_count(Algorithm::kNvls, Protocol::kSimple), 640);
  EXPECT_EQ(thread_count(Algorithm::kPat, Protocol::kSimple), 640);
}

TEST(NcclTuning, ProtocolCapsComeFromTheArchitectureTable) {
  const TuningTopology one = dgx_h100(1);
  EXPECT_EQ(per_channel_cap_GBps(one, Algorithm::kRing, Protocol::kLl128), 36.7);
  EXPECT_FALSE(per_channel_cap_GBps(one, Algorithm::kRing, Protocol::kSimple));
  EXPECT_EQ(per_channel_cap_GBps(dgx_a100(1), Algorithm::kRing, Protocol::kLl128), 20.0);
  // Tree on 16 nodes (N4): perChMaxTreeBw 36.0; LL128 min(36.0, 29.0).
  EXPECT_EQ(per_channel_cap_GBps(dgx_h100(16), Algorithm::kTree, Protocol::kSimple), 36.0);
  EXPECT_EQ(per_channel_cap_GBps(dgx_h100(16), Algorithm::kTree, Protocol::kLl128), 29.0);
  EXPECT_EQ(per_channel_cap_GBps(dgx_h100(2), Algorithm::kNvlsTree, Protocol::kSimple), 57.7);
  EXPECT_FALSE(per_channel_cap_GBps(one, Algorithm::kNvlsTree, Protocol::kSimple));
  // llMaxBw: 141 on one Hopper node, 22.5 on 2 AMD nodes.
  EXPECT_EQ(total_cap_GBps(one, Algorithm::kRing, Protocol::kLl), 141.0);
  EXPECT_EQ(total_cap_GBps(dgx_a100(2), Algorithm::kRing, Protocol::kLl), 22.5);
  EXPECT_FALSE(total_cap_GBps(one, Algorithm::kRing, Protocol::kLl128));
}

TEST(NcclTuning, WireBytesPerPayloadByteFollowTheLineFormats) {
  EXPECT_EQ(wire_bytes_per_payload_byte(Protocol::kLl), 2.0);
  EXPECT_NEAR(wire_bytes_per_payload_byte(Protocol::kLl128), 128.0 / 120.0, kTolerance);
  EXPECT_EQ(wire_bytes_per_payload_byte(Protocol::kSimple), 1.0);
}

}  // namespace
}  // namespace railsim::models
