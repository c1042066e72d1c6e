// File: models/collective/nccl_tuner_tables.hpp
// NCCL's tuner constants, as its sources hold them (nccl:src/graph/tuning.cc, search.cc,
// src/include/device.h, src/enqueue.cc), and the small predicates they are read with: what the
// channel search (nccl_channel_search.cpp) and the algorithm x protocol selection
// (nccl_tuning.cpp) share. Internal to those two; the model's interface is nccl_tuning.hpp.
#pragma once

#include "models/collective/collective_types.hpp"
#include "models/collective/nccl_tuning.hpp"

#include <array>
#include <cstddef>

namespace railsim::models::nccl {

// Rows of the per-algorithm tables: LL, LL128, Simple (kProtocols order).
using ProtocolRow = std::array<double, kProtocols.size()>;
// Tables indexed [algorithm][protocol] in kAlgorithms order.
using AlgorithmTable = std::array<ProtocolRow, kAlgorithms.size()>;
// Per-architecture caps indexed [arch][N1 = 1 node, N2 = 2 nodes, N4 = >= 3 nodes].
using ArchNodeTable = std::array<std::array<double, 3>, 4>;

inline std::size_t index(Algorithm algorithm) { return static_cast<std::size_t>(algorithm); }

inline std::size_t index(Protocol protocol) { return static_cast<std::size_t>(protocol); }

inline std::size_t index(GpuArch arch) { return static_cast<std::size_t>(arch); }

inline std::size_t index(HopKind hop) { return static_cast<std::size_t>(hop); }

// Base latency (us) (nccl:src/graph/tuning.cc, ncclTunerConstantsDefaults).
inline constexpr AlgorithmTable kBaseLatencyUs = {{
    {6.6, 14.0, 8.4},  // Ring
    {6.8, 14.0, 8.4},  // Tree
    {0.0, 0.0, 0.0},   // NVLS
    {0.0, 0.0, 0.0},   // NVLS Tree
    {8.0, 8.0, 8.0},   // PAT
    {0.0, 0.0, 0.0},   // CollNet Direct
    {0.0, 0.0, 0.0},   // CollNet Chain
}};

// Per-hop latency (us) [NVLINK, PCI, NET] (nccl:src/graph/tuning.cc, ncclTunerConstantsDefaults).
// The pairs NCCL never enables hold 0, as its table does (NVLS, NVLS Tree, PAT and CollNet run
// Simple only; NVLS needs NVLink).
inline constexpr std::array<AlgorithmTable, 3> kHopLatencyUs = {{
    {{
        // NVLINK
        {0.6, 1.9, 3.4},   // Ring
        {0.6, 1.25, 4.0},  // Tree
        {0.0, 0.0, 25.0},  // NVLS
        {0.0, 0.0, 25.0},  // NVLS Tree
        {0.0, 0.0, 4.0},   // PAT
        {0.0, 0.0, 3.7},   // CollNet Direct
        {0.0, 0.0, 2.8},   // CollNet Chain
    }},
    {{
        // PCI
        {1.0, 2.5, 5.7},  // Ring
        {1.0, 1.9, 4.0},  // Tree
        {0.0, 0.0, 0.0},  // NVLS
        {0.0, 0.0, 0.0},  // NVLS Tree
        {0.0, 0.0, 4.0},  // PAT
        {0.0, 0.0, 3.7},  // CollNet Direct
        {0.0, 0.0, 2.8},  // CollNet Chain
    }},
    {{
        // NET
        {2.7, 4.0, 14.0},  // Ring
        {5.0, 8.5, 14.0},  // Tree
        {0.0, 0.0, 18.0},  // NVLS
        {0.0, 0.0, 20.9},  // NVLS Tree
        {0.0, 0.0, 14.0},  // PAT
        {0.0, 0.0, 31.0},  // CollNet Direct
        {0.0, 0.0, 30.0},  // CollNet Chain
    }},
}};

// Single-node llMaxBw by GPU arch (GB/s) (nccl:src/graph/tuning.cc).
inline constexpr std::array kLlMaxBwOneNodeGBps = {39.0, 87.7, 141.0, 282.0};
// Multi-node llMaxBw by CPU vendor [2 nodes, >= 3 nodes] (nccl:src/graph/tuning.cc): Intel and
// other share NCCL's row 0, AMD its row 1.
inline constexpr std::array kLlMaxBwIntelGBps = {39.0, 20.4};
inline constexpr std::array kLlMaxBwAmdGBps = {22.5, 19.0};

// perChMaxRingLL128Bw (GB/s) by arch, the same for every node count (nccl:src/graph/tuning.cc).
inline constexpr std::array kRingLl128CapGBps = {20.0, 20.0, 36.7, 40.0};

// perChMaxTreeLL128Bw, perChMaxTreeBw and perChMaxNVLSTreeBw (GB/s) (nccl:src/graph/tuning.cc).
// The NVLS Tree entries NCCL never reads hold 0: NVLS Tree needs SM90+ and several nodes.
inline constexpr ArchNodeTable kTreeLl128CapGBps = {{
    {20.0, 20.0, 20.0},   // Volta
    {20.0, 20.0, 20.0},   // Ampere
    {36.7, 36.7, 29.0},   // Hopper
    {55.6, 31.67, 20.0},  // Blackwell
}};
inline constexpr ArchNodeTable kTreeCapGBps = {{
    {26.5, 18.5, 10.0},  // Volta
    {24.0, 23.6, 17.8},  // Ampere
    {38.7, 41.4, 36.0},  // Hopper
    {70.0, 42.8, 24.0},  // Blackwell
}};
inline constexpr ArchNodeTable kNvlsTreeCapGBps = {{
    {0.0, 0.0, 0.0},    // Volta
    {0.0, 0.0, 0.0},    // Ampere
    {0.0, 57.7, 45.5},  // Hopper
    {0.0, 96.0, 80.0},  // Blackwell
}};

// treeCorrectionFactor (nccl:src/graph/tuning.cc): NCCL's measured derating of Tree AllReduce
// bandwidth at medium sizes, [protocol][log2(bytes / 64)] for 64 B to 512 MiB, applied by its
// time estimate (ncclTopoGetAlgoTime); outside the table the factor is 1.
inline constexpr std::array<std::array<double, 24>, kProtocols.size()> kTreeCorrection = {{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},  // LL
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},  // LL128
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},  // Simple
}};

// NVLS efficiency by arch (nvlsEfficiency, nccl:src/graph/tuning.cc): 0.85 Hopper, 0.74
// Blackwell; none before SM90.
inline constexpr std::array kNvlsEfficiency = {0.0, 0.0, 0.85, 0.74};

// Graph search speeds (GB/s per channel), highest first (nccl:src/graph/search.cc). NCCL searches a
// single node with the intra array and several nodes with the inter one.
inline constexpr std::array kIntraSpeedsPreSm90 = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0,
                                                   9.0,  7.0,  6.0,  5.0,  4.0,  3.0};
inline constexpr std::array kInterSpeedsPreSm90 = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0,
                                                   12.0, 10.0, 9.0,  7.0,  6.0,  5.0,  4.0,
                                                   3.0,  2.4,  1.2,  0.24, 0.12};
inline constexpr std::array kIntraSpeedsSm90 = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0,
                                                15.0, 12.0, 11.0, 6.0,  3.0};
inline constexpr std::array kInterSpeedsSm90 = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0,
                                                22.0, 20.0, 17.5, 15.0, 12.0, 6.0,
                                                3.0,  2.4,  1.2,  0.24, 0.12};
inline constexpr std::array kIntraSpeedsSm100 = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0,
                                                 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
inline constexpr std::array kInterSpeedsSm100 = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0,
                                                 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0,
                                                 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

// MAXCHANNELS (nccl:src/include/device.h). The search stops at half of it, since the comm
// doubles the graph's channels and stays within MAXCHANNELS (nccl:src/graph/connect.cc).
inline constexpr int kMaxChannels = 64;
inline constexpr int kMaxSearchChannels = kMaxChannels / 2;

// Guards the floor of capacity / demand against rounding (NCCL rounds link budgets to 1e-3).
inline constexpr double kFitSlack = 1e-9;

// The search goes on to a slower speed after a solution only while that speed is above this
// fraction of the solution's (nccl:src/graph/search.cc ncclTopoCompute, "Decrease bw until we
// find a solution").
inline constexpr double kSlowerSpeedRatio = 0.49;

// Thread counts and per-thread work thresholds (nccl:src/include/device.h, src/enqueue.cc).
inline constexpr int kWarpSize = 32;
inline constexpr int kMaxThreads = 640;  // NCCL_MAX_NTHREADS: Tree, PAT, NVLS, NVLS Tree
inline constexpr std::array kProtocolMaxThreads = {512, 640, 512};     // LL, LL128, Simple
inline constexpr std::array kThreadThresholdBytes = {8.0, 8.0, 64.0};  // LL, LL128, Simple
inline constexpr double kCollNetThreadThresholdBytes = 512.0;          // CollNet, Simple
inline constexpr std::array kWireBytesPerPayloadByte = {16.0 / 8.0, 128.0 / 120.0, 1.0};

// NCCL's model rate of one NVLink per direction, GB/s, by GPU generation (nccl:src/graph/topo.h):
// SM70 20, SM80 20, SM90 20.6, SM100 40.1.
// NOLINTNEXTLINE(readability-identifier-naming): GBps spells the unit, as the fields do.
inline double nvlink_model_rate_GBps(GpuArch arch) {
  switch (arch) {
    case GpuArch::kVolta:
    case GpuArch::kAmpere:
      return 20.0;
    case GpuArch::kHopper:
      return 20.6;
    case GpuArch::kBlackwell:
      return 40.1;
  }
  return 20.0;
}

inline int ranks_of(const TuningTopology& topology) {
  return topology.nodes * topology.gpus_per_node;
}

// NCCL's column of its per-node-count tables: N1, N2, N4 (>= 3 nodes).
inline std::size_t node_class(int nodes) { return nodes == 1 ? 0 : nodes == 2 ? 1 : 2; }

inline bool sm90_or_later(GpuArch arch) {
  return arch == GpuArch::kHopper || arch == GpuArch::kBlackwell;
}

inline bool is_nvls(Algorithm algorithm) {
  return algorithm == Algorithm::kNvls || algorithm == Algorithm::kNvlsTree;
}

// NVLS needs NVSwitch multicast, reached over NVLink, on SM90+ (nccl:src/graph/tuning.cc).
inline bool nvls_possible(const TuningTopology& topology) {
  return topology.nvswitch && topology.intra_nvlink && sm90_or_later(topology.arch);
}

// NCCL_MAX_DIRECT_ARITY + 1: CollNet's most GPUs per node, and CollNet Direct's most heads
// (nccl:src/include/device.h, src/enqueue.cc).
inline constexpr int kMaxCollNetGpus = 8;

// CollNet runs AllReduce with Simple on at least NCCL_COLLNET_NODE_THRESHOLD = 2 nodes whose
// switches reduce, with at most 8 GPUs per node (nccl:src/init.cc, src/enqueue.cc).
inline bool collnet_possible(const TuningTopology& topology, CollectiveOp op, Protocol protocol) {
  return topology.collnet && topology.nodes > 1 && topology.gpus_per_node <= kMaxCollNetGpus &&
         op == CollectiveOp::kAllReduce && protocol == Protocol::kSimple;
}

// llMaxBw: by GPU arch on one node, by CPU vendor on several.
inline double ll_max_bw(const TuningTopology& topology) {
  if (topology.nodes == 1) {
    return kLlMaxBwOneNodeGBps[index(topology.arch)];
  }
  const std::size_t column = topology.nodes == 2 ? 0 : 1;
  return topology.cpu == CpuVendor::kAmd ? kLlMaxBwAmdGBps[column] : kLlMaxBwIntelGBps[column];
}

// A per-arch cap at the topology's node count.
inline double arch_node_cap(const ArchNodeTable& table, const TuningTopology& topology) {
  return table[index(topology.arch)][node_class(topology.nodes)];
}

}  // namespace railsim::models::nccl
