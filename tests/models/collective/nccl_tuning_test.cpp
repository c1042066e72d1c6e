// File: tests/models/collective/nccl_tuning_test.cpp
// NCCL's tuning model against hand calculations from the tables of nccl:src/graph/tuning.cc and
// search.cc. Each expectation's comment derives the number; none is read back from the program.
#include "nccl_tuning_testbed.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace railsim::models {
namespace {

using testing::all_algorithms;
using testing::choice_at;
using testing::cost_of;
using testing::dgx_a100;
using testing::dgx_h100;
using testing::expect_graph;
using testing::hgx_b200;
using testing::kTolerance;
using testing::one_h100_per_node;

TEST(NcclTuning, GpuArchOfReadsThePresetModelNames) {
  // node_presets.cpp: dgx-h100 "H100-SXM5-80GB", hgx-h200 "H200-SXM-141GB", dgx-a100
  // "A100-SXM4-80GB", a100-pcie-nvlink-bridge "A100-PCIE-80GB"; the header's "H100 SXM5".
  EXPECT_EQ(gpu_arch_of("H100 SXM5"), GpuArch::kHopper);
  EXPECT_EQ(gpu_arch_of("H100-SXM5-80GB"), GpuArch::kHopper);
  EXPECT_EQ(gpu_arch_of("H200-SXM-141GB"), GpuArch::kHopper);
  EXPECT_EQ(gpu_arch_of("A100-SXM4-80GB"), GpuArch::kAmpere);
  EXPECT_EQ(gpu_arch_of("A100-PCIE-80GB"), GpuArch::kAmpere);
  EXPECT_EQ(gpu_arch_of("Tesla V100-SXM2-32GB"), GpuArch::kVolta);
  EXPECT_EQ(gpu_arch_of("NVIDIA B200"), GpuArch::kBlackwell);
}

TEST(NcclTuning, GpuArchOfAnUnknownNameIsNullopt) {
  EXPECT_FALSE(gpu_arch_of("MI300X"));
  EXPECT_FALSE(gpu_arch_of(""));
  // Whole words only: an RTX A1000 is not an A100.
  EXPECT_FALSE(gpu_arch_of("RTX A1000"));
}

TEST(NcclTuning, CpuVendorOfReadsIntelAndAmdModels) {
  EXPECT_EQ(cpu_vendor_of("Intel Xeon Platinum 8480C"), CpuVendor::kIntel);
  EXPECT_EQ(cpu_vendor_of("AMD EPYC 7742"), CpuVendor::kAmd);
  EXPECT_EQ(cpu_vendor_of("AMD EPYC 7543 (assumed)"), CpuVendor::kAmd);
  // "Ampere" holds the letters A, M, D but is not AMD.
  EXPECT_EQ(cpu_vendor_of("Ampere Altra Q80-30"), CpuVendor::kOther);
  EXPECT_EQ(cpu_vendor_of("Grace"), CpuVendor::kOther);
}

TEST(NcclTuning, LatencyTablesHoldTheFabricFactsValues) {
  // §2.3 base latencies.
  EXPECT_EQ(base_latency_us(Algorithm::kRing, Protocol::kLl), 6.6);
  EXPECT_EQ(base_latency_us(Algorithm::kTree, Protocol::kLl), 6.8);
  EXPECT_EQ(base_latency_us(Algorithm::kTree, Protocol::kLl128), 14.0);
  EXPECT_EQ(base_latency_us(Algorithm::kNvls, Protocol::kSimple), 0.0);
  EXPECT_EQ(base_latency_us(Algorithm::kPat, Protocol::kSimple), 8.0);
  // §2.3 per-hop latencies.
  EXPECT_EQ(hop_latency_us(HopKind::kNvlink, Algorithm::kTree, Protocol::kLl128), 1.25);
  EXPECT_EQ(hop_latency_us(HopKind::kPci, Algorithm::kRing, Protocol::kSimple), 5.7);
  EXPECT_EQ(hop_latency_us(HopKind::kNet, Algorithm::kRing, Protocol::kLl), 2.7);
  EXPECT_EQ(hop_latency_us(HopKind::kNet, Algorithm::kTree, Protocol::kLl), 5.0);
  EXPECT_EQ(hop_latency_us(HopKind::kNvlink, Algorithm::kNvlsTree, Protocol::kSimple), 25.0);
  EXPECT_EQ(hop_latency_us(HopKind::kNet, Algorithm::kNvlsTree, Protocol::kSimple), 20.9);
}

TEST(NcclTuning, NetOverheadIsOneUsIntelTwoUsAmdTimesThreeForSimple) {
  EXPECT_EQ(net_overhead_us(CpuVendor::kIntel, Protocol::kLl), 1.0);
  EXPECT_EQ(net_overhead_us(CpuVendor::kOther, Protocol::kLl128), 1.0);
  EXPECT_EQ(net_overhead_us(CpuVendor::kAmd, Protocol::kLl), 2.0);
  EXPECT_EQ(net_overhead_us(CpuVendor::kIntel, Protocol::kSimple), 3.0);
  EXPECT_EQ(net_overhead_us(CpuVendor::kAmd, Protocol::kSimple), 6.0);
}

// --- Graph search (§2.5) ---

TEST(NcclTuning, SearchOnOneH100NodeFindsSixRingsAt60DuplicatedToTwelveAt30) {
  // SM90 intra speeds, 370.8 GB/s per GPU, a ring cycle loads each GPU once per channel:
  // 60 -> floor(370.8/60) = 6 channels = 360; 50 -> 7 = 350; 40 -> 9 = 360; 30 -> 12 = 360; ...
  // 11 -> 33, capped at 32 = 352. 6 x 60 is first among the 360s. Dup: 60 >= 50 -> 12 x 30,
  // the graph of the worked example of §2.4.
  expect_graph(search_graph(dgx_h100(1), Algorithm::kRing), 12, 30.0, 30.0);
  // Tree keeps 12 channels; a chain loads a GPU 7/8 per channel: 12 x 40 x 7/8 = 420 > 370.8,
  // 12 x 30 x 7/8 = 315 fits -> 30.
  expect_graph(search_graph(dgx_h100(1), Algorithm::kTree), 12, 30.0, 30.0);
}

TEST(NcclTuning, SearchOnSixteenH100NodesFindsOneRingPerNicAt48) {
  // SM90 inter speeds up to the NIC's 50: 48 -> 8 NICs x floor(50/48) = 8 channels; the chain of
  // 7 NVLink hops loads a GPU 8 x 48 x 7/8 = 336 <= 370.8. 8 x 48 = 384; no lower speed beats it
  // (24 -> 16 x 24 = 384 ties, 12 -> 32 x 12 = 384 ties). No dup: 48 < 50 with 8 > 4 channels.
  expect_graph(search_graph(dgx_h100(16), Algorithm::kRing), 8, 48.0, 48.0);
  expect_graph(search_graph(dgx_h100(16), Algorithm::kTree), 8, 48.0, 48.0);
}

TEST(NcclTuning, SearchOnOneA100NodeFindsSixRingsAt40DuplicatedToTwelveAt20) {
  // Pre-SM90 intra speeds, 240 GB/s: 40 -> 6 = 240 (30 -> 8 = 240 and 20 -> 12 = 240 tie).
  // Dup: 40 >= 25 and Ampere is not SM90+ -> 12 x 20.
  expect_graph(search_graph(dgx_a100(1), Algorithm::kRing), 12, 20.0, 20.0);
}

TEST(NcclTuning, SearchOnSixteenA100NodesFindsEightRingsAt24WithoutDuplication) {
  // Pre-SM90 inter speeds up to the NIC's 25: 24 -> 8 NICs x 1 = 8 (chain 8 x 24 x 7/8 = 168
  // <= 240) = 192, the ~192 GB/s DGX A100 ring busbw NVIDIA's maintainers quote (NVIDIA/nccl#812).
  // 24 < 25: no dup.
  expect_graph(search_graph(dgx_a100(16), Algorithm::kRing), 8, 24.0, 24.0);
}

TEST(NcclTuning, SearchStopsLoweringTheSpeedBelowHalfOfItsSolution) {
  // 2 x 1 A100 PCIe, one 200G NIC each (25 GB/s), as in nccl-tests issue 350. Pre-SM90 inter
  // speeds up to 25: 24 -> 1 channel = 24; 20, 18, 15 -> 1; 12 -> 2 = 24, a tie; 10 is below
  // 0.49 x 24 = 11.76, so the search stops there. (Going on, 5 -> 5 channels = 25 would win.)
  // No dup below 25; the comm doubles it: 2, the "2 coll channels" that log printed.
  TuningTopology topology = dgx_a100(2);
  topology.gpus_per_node = 1;
  topology.intra_nvlink = false;
  topology.nvswitch = false;
  topology.intra_bw_GBps = 24.0;
  topology.nics_per_node = 1;
  topology.nic_bw_GBps = 25.0;
  expect_graph(search_graph(topology, Algorithm::kRing), 1, 24.0, 24.0);
  EXPECT_EQ(comm_channels(topology, Algorithm::kRing), 2);
}

TEST(NcclTuning, TreeOnOneB200NodeKeepsTheRingChannelsAtTheFastestSpeedThatFits) {
  // Ring: SM100 intra, 721.8 GB/s: 90 -> 8 = 720 first; dup (90 >= 50) -> 16 x 45.
  expect_graph(search_graph(hgx_b200(1), Algorithm::kRing), 16, 45.0, 45.0);
  // Tree: 16 channels x 7/8: 60 -> 840 > 721.8; 50 -> 700 fits.
  expect_graph(search_graph(hgx_b200(1), Algorithm::kTree), 16, 50.0, 50.0);
}

TEST(NcclTuning, NvlsSearchOnOneH100NodeFindsEightHeadsAt40WithInterRaisedTo60) {
  // One head per GPU; each GPU carries every channel plus its own head once more:
  // 60 -> floor(370.8/60) - 1 = 5 -> 300; 50 -> 6 -> 300; 40 -> 8 (9 x 40 = 360) -> 320.
  // Inter raised while below 2 x 40: 50, 60 (top of the array).
  expect_graph(search_graph(dgx_h100(1), Algorithm::kNvls), 8, 40.0, 60.0);
}

TEST(NcclTuning, NvlsSearchOnSixteenH100NodesRaisesInterToTheNicLimit) {
  // SM90 inter speeds: 48 -> floor(370.8/48) - 1 = 6 -> 288; 45 -> 7 -> 315; 42 -> 7 -> 294;
  // 40 -> 8 -> 320. One head per NIC, inter raised 42, 45, 48 (each <= 50 GB/s per NIC).
  expect_graph(search_graph(dgx_h100(16), Algorithm::kNvlsTree), 8, 40.0, 48.0);
}

TEST(NcclTuning, NvlsSearchOnAnH800NodeRaisesInterUntilTwiceIntra) {
  // H800: 8 NVLinks x 20.6 = 164.8 GB/s (NVIDIA H800 datasheet: 8 NVLinks). Heads: 60 -> 2 - 1 = 1
  // -> 60; 50 -> 2 -> 100; 40 -> 3 -> 120; 30 -> 4 -> 120; 24 -> 5 -> 120; 20 -> 7 -> 140; 15 -> 10
  // - 1 = 9, capped at 8 -> 120. Inter from 20: 24, 30, 40, then 40 is not below 2 x 20.
  TuningTopology h800 = dgx_h100(1);
  h800.intra_bw_GBps = 164.8;
  expect_graph(search_graph(h800, Algorithm::kNvls), 7, 20.0, 40.0);
}

TEST(NcclTuning, NvlsGraphIsEmptyBeforeHopper) {
  EXPECT_EQ(search_graph(dgx_a100(1), Algorithm::kNvls).channels, 0);
}

TEST(NcclTuning, CommChannelsDoubleTheGraphWhenRingsConnect) {
  // 2 x 12 on one H100 node; 2 x 8 on 16 nodes (16 is not < 16: no second doubling).
  EXPECT_EQ(comm_channels(dgx_h100(1), Algorithm::kRing), 24);
  EXPECT_EQ(comm_channels(dgx_h100(1), Algorithm::kTree), 24);
  EXPECT_EQ(comm_channels(dgx_h100(16), Algorithm::kRing), 16);
  EXPECT_EQ(comm_channels(dgx_a100(16), Algorithm::kRing), 16);
}

TEST(NcclTuning, CommChannelsDoubleAgainOnHopperMultiNodeRingsBelowSixteen) {
  // 6 NICs: 48 -> 6 channels = 288 (24 -> 12 = 288 and 12 -> 24 = 288 tie); no dup (48 < 50,
  // 6 > 4). Comm: 2 x 6 = 12 < 16 with bwIntra 48 > 45 -> 24.
  TuningTopology topology = dgx_h100(16);
  topology.nics_per_node = 6;
  expect_graph(search_graph(topology, Algorithm::kRing), 6, 48.0, 48.0);
  EXPECT_EQ(comm_channels(topology, Algorithm::kRing), 24);
}

TEST(NcclTuning, NvlsCommChannelsAreFixedPerArchitecture) {
  EXPECT_EQ(comm_channels(dgx_h100(1), Algorithm::kNvls), 16);
  EXPECT_EQ(comm_channels(dgx_h100(4), Algorithm::kNvlsTree), 16);
  EXPECT_EQ(comm_channels(hgx_b200(1), Algorithm::kNvls), 24);
  EXPECT_EQ(comm_channels(hgx_b200(2), Algorithm::kNvlsTree), 32);
  EXPECT_EQ(comm_channels(dgx_a100(1), Algorithm::kNvls), 0);
}

// --- Latency and bandwidth of the worked example (§2.4): 8 x H100, one node, ring AllReduce ---

TEST(NcclTuning, RingSimpleLatencyOnOneH100NodeIs56us) {
  // 8.4 + 14 x 3.4 = 56.0 us; busBw 12 x 30 = 360 -> x 8/14 = 205.71 GB/s.
  const AlgoCost cost =
      cost_of(dgx_h100(1), CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kSimple);
  EXPECT_NEAR(cost.latency_us, 56.0, kTolerance);
  EXPECT_NEAR(cost.bandwidth_GBps, 360.0 * 8 / 14, kTolerance);
}

TEST(NcclTuning, RingLl128LatencyOnOneH100NodeIs40Point6us) {
  // 14 + 14 x 1.9 = 40.6 us; min(360 x 0.92 = 331.2, 12 x 36.7 = 440.4) x 8/14 = 189.26 GB/s.
  const AlgoCost cost =
      cost_of(dgx_h100(1), CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kLl128);
  EXPECT_NEAR(cost.latency_us, 40.6, kTolerance);
  EXPECT_NEAR(cost.bandwidth_GBps, 331.2 * 8 / 14, kTolerance);
}

TEST(NcclTuning, RingLlOnOneH100NodeIs15usCappedAt141GBps) {
  // 6.6 + 14 x 0.6 = 15.0 us; min(llMaxBw 141, 360 x 0.5 = 180) x 8/14 = 80.57 GB/s.
  const AlgoCost cost =
      cost_of(dgx_h100(1), CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kLl);
  EXPECT_NEAR(cost.latency_us, 15.0, kTolerance);
  EXPECT_NEAR(cost.bandwidth_GBps, 141.0 * 8 / 14, kTolerance);
}

TEST(NcclTuning, RingBroadcastOnOneNodePaysOneHop) {
  // Identical channels: 8.4 + 3.4 = 11.8 us; busBw 360 x nRanks/nsteps = 8/8 -> 360 GB/s.
  const AlgoCost cost =
      cost_of(dgx_h100(1), CollectiveOp::kBroadcast, Algorithm::kRing, Protocol::kSimple);
  EXPECT_NEAR(cost.latency_us, 11.8, kTolerance);
  EXPECT_NEAR(cost.bandwidth_GBps, 360.0, kTolerance);
}

TEST(NcclTuning, TreeOnOneH100NodeChainsSevenHopsTwice) {
  // Simple: 8.4 + 2 x (7 x 4.0) = 64.4 us; min(360 x 0.92 = 331.2, 12 x 38.7) x 0.5 = 165.6.
  const AlgoCost simple =
      cost_of(dgx_h100(1), CollectiveOp::kAllReduce, Algorithm::kTree, Protocol::kSimple);
  EXPECT_NEAR(simple.latency_us, 64.4, kTolerance);
  EXPECT_NEAR(simple.bandwidth_GBps, 165.6, kTolerance);
  // LL128: 14 + 2 x 7 x 1.25 = 31.5 us; min(331.2 x 7/9 = 257.6, 12 x 36.7) x 0.5 = 128.8.
  const AlgoCost ll128 =
      cost_of(dgx_h100(1), CollectiveOp::kAllReduce, Algorithm::kTree, Protocol::kLl128);
  EXPECT_NEAR(ll128.latency_us, 31.5, kTolerance);
  EXPECT_NEAR(ll128.bandwidth_GBps, 128.8, kTolerance);
}

TEST(NcclTuning, NvlsAllReduceOnOneH100NodeIs25usAnd272GBps) {
  // Latency: the NVLink hop, 25 us. Per channel min(40 x 0.85 x 7/8 x 2 = 59.5, inter 60) = 59.5;
  // busBw 8 x 59.5 = 476 (the ~480 GB/s busbw of §6) -> x 8/14 = 272.0 GB/s.
  const AlgoCost cost =
      cost_of(dgx_h100(1), CollectiveOp::kAllReduce, Algorithm::kNvls, Protocol::kSimple);
  EXPECT_NEAR(cost.latency_us, 25.0, kTolerance);
  EXPECT_NEAR(cost.bandwidth_GBps, 272.0, kTolerance);
}

TEST(NcclTuning, NvlsAllGatherKeepsItsBusBandwidth) {
  // Per channel 40 x 0.85 x 7/8 x (8-1)/8 = 26.03; x 8 channels = 208.25, not converted.
  const AlgoCost cost =
      cost_of(dgx_h100(1), CollectiveOp::kAllGather, Algorithm::kNvls, Protocol::kSimple);
  EXPECT_NEAR(cost.bandwidth_GBps, 8 * 40.0 * 0.85 * 7 / 8 * 7 / 8, kTolerance);
}

// --- Several nodes ---

TEST(NcclTuning, RingSimpleAllReduceOnSixteenH100NodesCountsThirtyNetSteps) {
  // 128 ranks: nsteps 254, nInter 2 x 15 = 30. Intra max(3.4, 1.0 x 3) = 3.4, inter 14:
  // 8.4 + 224 x 3.4 + 30 x 14 = 1190.0 us. busBw 8 x 48 = 384 x 128/254 = 193.51 GB/s.
  const AlgoCost cost =
      cost_of(dgx_h100(16), CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kSimple);
  EXPECT_NEAR(cost.latency_us, 1190.0, kTolerance);
  EXPECT_NEAR(cost.bandwidth_GBps, 384.0 * 128 / 254, kTolerance);
}

TEST(NcclTuning, MultiNodeRingIntraHopsCostAtLeastTheNetOverhead) {
  // LL: intra max(0.6, 1.0) = 1.0: 6.6 + 224 x 1.0 + 30 x 2.7 = 311.6 us.
  EXPECT_NEAR(
      cost_of(dgx_h100(16), CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kLl).latency_us,
      311.6, kTolerance);
  // AMD: intra max(0.6, 2.0) = 2.0: 6.6 + 448 + 81 = 535.6 us.
  TuningTopology amd = dgx_h100(16);
  amd.cpu = CpuVendor::kAmd;
  EXPECT_NEAR(cost_of(amd, CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kLl).latency_us,
              535.6, kTolerance);
  // AllGather Simple: nsteps 127, nInter 15: 8.4 + 112 x 3.4 + 15 x 14 = 599.2 us.
  EXPECT_NEAR(cost_of(dgx_h100(16), CollectiveOp::kAllGather, Algorithm::kRing, Protocol::kSimple)
                  .latency_us,
              599.2, kTolerance);
}

TEST(NcclTuning, MultiNodeLlBandwidthIsCappedByCpuVendor) {
  // >= 3 nodes, Intel: min(20.4, 192) x 128/254.
  EXPECT_NEAR(cost_of(dgx_h100(16), CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kLl)
                  .bandwidth_GBps,
              20.4 * 128 / 254, kTolerance);
  // 2 nodes, Intel: min(39.0, 8 x 48 x 0.5) x 16/30 = 20.8; AMD 22.5 x 16/30 = 12.0.
  EXPECT_NEAR(cost_of(dgx_h100(2), CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kLl)
                  .bandwidth_GBps,
              20.8, kTolerance);
  TuningTopology amd = dgx_h100(2);
  amd.cpu = CpuVendor::kAmd;
  EXPECT_NEAR(
      cost_of(amd, CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kLl).bandwidth_GBps, 12.0,
      kTolerance);
}

TEST(NcclTuning, TreeLatencyOnSixteenNodesCountsFourLevels) {
  // Simple: 8.4 + 2 x (7 x 4.0 + 4 x 14) = 176.4 us; LL: 6.8 + 2 x (7 x 0.6 + 4 x 5.0) = 55.2.
  EXPECT_NEAR(cost_of(dgx_h100(16), CollectiveOp::kAllReduce, Algorithm::kTree, Protocol::kSimple)
                  .latency_us,
              176.4, kTolerance);
  EXPECT_NEAR(
      cost_of(dgx_h100(16), CollectiveOp::kAllReduce, Algorithm::kTree, Protocol::kLl).latency_us,
      55.2, kTolerance);
  // 12 nodes: log2 floors to 3: 8.4 + 2 x (28 + 3 x 14) = 148.4 us.
  EXPECT_NEAR(cost_of(dgx_h100(12), CollectiveOp::kAllReduce, Algorithm::kTree, Protocol::kSimple)
                  .latency_us,
              148.4, kTolerance);
}

TEST(NcclTuning, TreeBandwidthOnSixteenH100NodesIsCappedPerChannel) {
  // busBw 8 x 48 = 384; min(384 x 0.92, 8 x 36.0 = 288) = 288. Simple x 0.5 = 144.
  EXPECT_NEAR(cost_of(dgx_h100(16), CollectiveOp::kAllReduce, Algorithm::kTree, Protocol::kSimple)
                  .bandwidth_GBps,
              144.0, kTolerance);
  // LL128: min(288 x 120/128 = 270, 8 x 29.0 = 232) x 0.5 = 116.
  EXPECT_NEAR(cost_of(dgx_h100(16), CollectiveOp::kAllReduce, Algorithm::kTree, Protocol::kLl128)
                  .bandwidth_GBps,
              116.0, kTolerance);
}

TEST(NcclTuning, NvlsTreeOnSixteenH100NodesIsHeldToItsCap) {
  // Latency 25 + 2 x 4 x 20.9 = 192.2 us. Per channel min(40 x 0.85 x 7/8 x 2 = 59.5, 48,
  // cap 45.5) = 45.5; busBw 364 x 128/254.
  const AlgoCost cost =
      cost_of(dgx_h100(16), CollectiveOp::kAllReduce, Algorithm::kNvlsTree, Protocol::kSimple);
  EXPECT_NEAR(cost.latency_us, 192.2, kTolerance);
  EXPECT_NEAR(cost.bandwidth_GBps, 364.0 * 128 / 254, kTolerance);
}

TEST(NcclTuning, NvlsTreeOnTwoH100NodesDoublesItsInterBandwidth) {
  // Latency 25 + 2 x 1 x 20.9 = 66.8 us. Per channel min(59.5, 48 x 2 = 96, cap 57.7) = 57.7;
  // busBw 8 x 57.7 = 461.6 x 16/30.
  const AlgoCost cost =
      cost_of(dgx_h100(2), CollectiveOp::kAllReduce, Algorithm::kNvlsTree, Protocol::kSimple);
  EXPECT_NEAR(cost.latency_us, 66.8, kTolerance);
  EXPECT_NEAR(cost.bandwidth_GBps, 461.6 * 16 / 30, kTolerance);
}

TEST(NcclTuning, PatAllGatherWithOneGpuPerNodeHasLogLatency) {
  // Graph: 48 -> 1 channel on the one NIC; dup (48 < 50 but 1 channel) -> 2 x 24.
  // Latency 8 + log2(16) x 14/3.5 + 2.8 x 16 = 68.8 us; bw 2 x 24 x 0.75 = 36 GB/s.
  const AlgoCost cost =
      cost_of(one_h100_per_node(16), CollectiveOp::kAllGather, Algorithm::kPat, Protocol::kSimple);
  EXPECT_NEAR(cost.latency_us, 68.8, kTolerance);
  EXPECT_NEAR(cost.bandwidth_GBps, 36.0, kTolerance);
  // The ring pays 15 NET steps at Tree's NET latency: 8.4 + 15 x 14 = 218.4 us.
  EXPECT_NEAR(
      cost_of(one_h100_per_node(16), CollectiveOp::kAllGather, Algorithm::kRing, Protocol::kSimple)
          .latency_us,
      218.4, kTolerance);
  // Ring LL (6.6 + 15 x 5.0 = 81.6 us) is the runner-up at 1 KiB: PAT wins.
  const AlgoChoice choice =
      choice_at(one_h100_per_node(16), CollectiveOp::kAllGather, 1024.0, all_algorithms);
  EXPECT_EQ(choice.algorithm, Algorithm::kPat);
}

// --- Enablement ---

TEST(NcclTuning, DisabledPairsHaveNoCost) {
  const TuningTopology one = dgx_h100(1);
  const TuningTopology sixteen = dgx_h100(16);
  // Tree runs AllReduce only; Broadcast is Ring only.
  EXPECT_FALSE(algo_cost(one, CollectiveOp::kAllGather, Algorithm::kTree, Protocol::kSimple));
  EXPECT_FALSE(algo_cost(one, CollectiveOp::kBroadcast, Algorithm::kNvls, Protocol::kSimple));
  // NVLS, NVLS Tree and PAT are Simple only.
  EXPECT_FALSE(algo_cost(one, CollectiveOp::kAllReduce, Algorithm::kNvls, Protocol::kLl));
  EXPECT_FALSE(
      algo_cost(sixteen, CollectiveOp::kAllReduce, Algorithm::kNvlsTree, Protocol::kLl128));
  // NVLS Tree is off on one node; NVLS off on several (it needs CollNet there).
  EXPECT_FALSE(algo_cost(one, CollectiveOp::kAllReduce, Algorithm::kNvlsTree, Protocol::kSimple));
  EXPECT_FALSE(algo_cost(sixteen, CollectiveOp::kAllReduce, Algorithm::kNvls, Protocol::kSimple));
  // NVLS needs SM90+ and an NVSwitch.
  EXPECT_FALSE(
      algo_cost(dgx_a100(1), CollectiveOp::kAllReduce, Algorithm::kNvls, Protocol::kSimple));
  TuningTopology bridged = one;
  bridged.nvswitch = false;
  EXPECT_FALSE(algo_cost(bridged, CollectiveOp::kAllReduce, Algorithm::kNvls, Protocol::kSimple));
  // PAT only with one GPU per node, and never for AllReduce.
  EXPECT_FALSE(algo_cost(sixteen, CollectiveOp::kAllGather, Algorithm::kPat, Protocol::kSimple));
  EXPECT_FALSE(algo_cost(one_h100_per_node(16), CollectiveOp::kAllReduce, Algorithm::kPat,
                         Protocol::kSimple));
  // LL128 is off when the intra graph is PCI.
  TuningTopology pci = one;
  pci.intra_nvlink = false;
  pci.nvswitch = false;
  pci.intra_bw_GBps = 48.0;
  EXPECT_FALSE(algo_cost(pci, CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kLl128));
  // A single rank runs no algorithm.
  TuningTopology single = one;
  single.gpus_per_node = 1;
  EXPECT_FALSE(algo_cost(single, CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kSimple));
}

TEST(NcclTuning, Ll128IsOnForAmpereWithNvlink) {
  // Chosen reading of §2.2 for older GPUs: on with an NVLink intra graph (NIC taken as <= PXB).
  // min(12 x 20 x 0.92 = 220.8, 12 x 20.0 = 240) x 8/14.
  EXPECT_NEAR(cost_of(dgx_a100(1), CollectiveOp::kAllReduce, Algorithm::kRing, Protocol::kLl128)
                  .bandwidth_GBps,
              220.8 * 8 / 14, kTolerance);
}

}  // namespace
}  // namespace railsim::models
