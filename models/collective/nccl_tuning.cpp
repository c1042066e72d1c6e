// File: models/collective/nccl_tuning.cpp
// NCCL's performance model from the tables of fabric-facts.md §2.2-§2.5 (nccl:src/graph/tuning.cc,
// search.cc, connect.cc, src/enqueue.cc, src/transport/nvls.cc). Where fabric-facts lacks a rule
// the model needs, the nearest documented behaviour stands in and the comment says so.
#include "models/collective/nccl_tuning.hpp"

#include "sim/assert.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <span>
#include <string_view>

namespace railsim::models {
namespace {

// Rows of the per-algorithm tables: LL, LL128, Simple (kProtocols order).
using ProtocolRow = std::array<double, kProtocols.size()>;
// Tables indexed [algorithm][protocol] in kAlgorithms order.
using AlgorithmTable = std::array<ProtocolRow, kAlgorithms.size()>;
// Per-architecture caps indexed [arch][N1 = 1 node, N2 = 2 nodes, N4 = >= 3 nodes].
using ArchNodeTable = std::array<std::array<double, 3>, 4>;

std::size_t index(Algorithm algorithm) { return static_cast<std::size_t>(algorithm); }

std::size_t index(Protocol protocol) { return static_cast<std::size_t>(protocol); }

std::size_t index(GpuArch arch) { return static_cast<std::size_t>(arch); }

std::size_t index(HopKind hop) { return static_cast<std::size_t>(hop); }

// Base latency (us), fabric-facts.md §2.3 (nccl:src/graph/tuning.cc ncclTunerConstantsDefaults).
constexpr AlgorithmTable kBaseLatencyUs = {{
    {6.6, 14.0, 8.4},  // Ring
    {6.8, 14.0, 8.4},  // Tree
    {0.0, 0.0, 0.0},   // NVLS
    {0.0, 0.0, 0.0},   // NVLS Tree
    {8.0, 8.0, 8.0},   // PAT
}};

// Per-hop latency (us) [NVLINK, PCI, NET], fabric-facts.md §2.3 (nccl:src/graph/tuning.cc
// ncclTunerConstantsDefaults). The entries fabric-facts shows as "-" hold 0, as NCCL's table
// does: those pairs are never enabled (NVLS, NVLS Tree and PAT run Simple only; NVLS needs NVLink).
constexpr std::array<AlgorithmTable, 3> kHopLatencyUs = {{
    {{
        // NVLINK
        {0.6, 1.9, 3.4},   // Ring
        {0.6, 1.25, 4.0},  // Tree
        {0.0, 0.0, 25.0},  // NVLS
        {0.0, 0.0, 25.0},  // NVLS Tree
        {0.0, 0.0, 4.0},   // PAT
    }},
    {{
        // PCI
        {1.0, 2.5, 5.7},  // Ring
        {1.0, 1.9, 4.0},  // Tree
        {0.0, 0.0, 0.0},  // NVLS
        {0.0, 0.0, 0.0},  // NVLS Tree
        {0.0, 0.0, 4.0},  // PAT
    }},
    {{
        // NET
        {2.7, 4.0, 14.0},  // Ring
        {5.0, 8.5, 14.0},  // Tree
        {0.0, 0.0, 18.0},  // NVLS
        {0.0, 0.0, 20.9},  // NVLS Tree
        {0.0, 0.0, 14.0},  // PAT
    }},
}};

// Single-node llMaxBw by GPU arch (GB/s), fabric-facts.md §2.4 (nccl:src/graph/tuning.cc).
constexpr std::array kLlMaxBwOneNodeGBps = {39.0, 87.7, 141.0, 282.0};
// Multi-node llMaxBw by CPU vendor [2 nodes, >= 3 nodes], fabric-facts.md §2.4: Intel and other
// share NCCL's row 0, AMD its row 1.
constexpr std::array kLlMaxBwIntelGBps = {39.0, 20.4};
constexpr std::array kLlMaxBwAmdGBps = {22.5, 19.0};

// perChMaxRingLL128Bw (GB/s) by arch, the same for every node count, fabric-facts.md §2.4.
constexpr std::array kRingLl128CapGBps = {20.0, 20.0, 36.7, 40.0};

// perChMaxTreeLL128Bw, perChMaxTreeBw and perChMaxNVLSTreeBw (GB/s), fabric-facts.md §2.4
// (nccl:src/graph/tuning.cc). The NVLS Tree entries shown as "-" hold 0: NVLS Tree needs SM90+
// and several nodes, so they are never read.
constexpr ArchNodeTable kTreeLl128CapGBps = {{
    {20.0, 20.0, 20.0},   // Volta
    {20.0, 20.0, 20.0},   // Ampere
    {36.7, 36.7, 29.0},   // Hopper
    {55.6, 31.67, 20.0},  // Blackwell
}};
constexpr ArchNodeTable kTreeCapGBps = {{
    {26.5, 18.5, 10.0},  // Volta
    {24.0, 23.6, 17.8},  // Ampere
    {38.7, 41.4, 36.0},  // Hopper
    {70.0, 42.8, 24.0},  // Blackwell
}};
constexpr ArchNodeTable kNvlsTreeCapGBps = {{
    {0.0, 0.0, 0.0},    // Volta
    {0.0, 0.0, 0.0},    // Ampere
    {0.0, 57.7, 45.5},  // Hopper
    {0.0, 96.0, 80.0},  // Blackwell
}};

// NVLS efficiency by arch, fabric-facts.md §2.4: 0.85 Hopper, 0.74 Blackwell; none before SM90.
constexpr std::array kNvlsEfficiency = {0.0, 0.0, 0.85, 0.74};

// Graph search speeds (GB/s per channel), highest first, fabric-facts.md §2.5
// (nccl:src/graph/search.cc). NCCL searches a single node with the intra array and several
// nodes with the inter one.
constexpr std::array kIntraSpeedsPreSm90 = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0,
                                            9.0,  7.0,  6.0,  5.0,  4.0,  3.0};
constexpr std::array kInterSpeedsPreSm90 = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0,
                                            12.0, 10.0, 9.0,  7.0,  6.0,  5.0,  4.0,
                                            3.0,  2.4,  1.2,  0.24, 0.12};
constexpr std::array kIntraSpeedsSm90 = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0,
                                         15.0, 12.0, 11.0, 6.0,  3.0};
constexpr std::array kInterSpeedsSm90 = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                         15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr std::array kIntraSpeedsSm100 = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0,
                                          40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
constexpr std::array kInterSpeedsSm100 = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0,
                                          30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0,
                                          6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

// MAXCHANNELS (fabric-facts.md §2.5). The search stops at half of it, since the comm doubles
// the graph's channels and stays within MAXCHANNELS.
constexpr int kMaxChannels = 64;
constexpr int kMaxSearchChannels = kMaxChannels / 2;

// Guards the floor of capacity / demand against rounding (NCCL rounds link budgets to 1e-3).
constexpr double kFitSlack = 1e-9;

// Thread counts and per-thread work thresholds, fabric-facts.md §2.2 and §2.5
// (nccl:src/include/device.h, src/enqueue.cc).
constexpr int kWarpSize = 32;
constexpr int kMaxThreads = 640;  // NCCL_MAX_NTHREADS: Tree, PAT, NVLS, NVLS Tree
constexpr std::array kProtocolMaxThreads = {512, 640, 512};     // LL, LL128, Simple
constexpr std::array kThreadThresholdBytes = {8.0, 8.0, 64.0};  // LL, LL128, Simple
constexpr std::array kWireBytesPerPayloadByte = {16.0 / 8.0, 128.0 / 120.0, 1.0};

int ranks_of(const TuningTopology& topology) { return topology.nodes * topology.gpus_per_node; }

// NCCL's column of its per-node-count tables: N1, N2, N4 (>= 3 nodes).
std::size_t node_class(int nodes) { return nodes == 1 ? 0 : nodes == 2 ? 1 : 2; }

bool sm90_or_later(GpuArch arch) { return arch == GpuArch::kHopper || arch == GpuArch::kBlackwell; }

bool is_gather_scatter(CollectiveOp op) {
  return op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter;
}

bool is_nvls(Algorithm algorithm) {
  return algorithm == Algorithm::kNvls || algorithm == Algorithm::kNvlsTree;
}

// NVLS needs NVSwitch multicast, reached over NVLink, on SM90+ (fabric-facts.md §2.1).
bool nvls_possible(const TuningTopology& topology) {
  return topology.nvswitch && topology.intra_nvlink && sm90_or_later(topology.arch);
}

// NCCL's log2i: the floor of log2, so 12 nodes count 3 tree levels.
int log2_floor(int n) {
  int levels = 0;
  while (n > 1) {
    n /= 2;
    ++levels;
  }
  return levels;
}

// nsteps of the model (fabric-facts.md §2.3): AllReduce 2(n-1), AG/RS n-1, Broadcast n.
int model_steps(CollectiveOp op, int ranks) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return 2 * (ranks - 1);
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
      return ranks - 1;
    case CollectiveOp::kBroadcast:
      return ranks;
  }
  RAILSIM_UNREACHABLE("every CollectiveOp has a step count");
}

// How many demands of `demand` fit in `capacity`.
int fit(double capacity, double demand) {
  return static_cast<int>(std::floor(capacity / demand + kFitSlack));
}

std::span<const double> search_speeds(const TuningTopology& topology) {
  const bool single_node = topology.nodes == 1;
  switch (topology.arch) {
    case GpuArch::kVolta:
    case GpuArch::kAmpere:
      return single_node ? std::span<const double>(kIntraSpeedsPreSm90) : kInterSpeedsPreSm90;
    case GpuArch::kHopper:
      return single_node ? std::span<const double>(kIntraSpeedsSm90) : kInterSpeedsSm90;
    case GpuArch::kBlackwell:
      return single_node ? std::span<const double>(kIntraSpeedsSm100) : kInterSpeedsSm100;
  }
  RAILSIM_UNREACHABLE("every GpuArch has speed arrays");
}

// NCCL skips speeds above the best path bandwidth: GPU to GPU on one node, GPU to NIC on several.
// The GPU-NIC path is taken as the NIC's rate, since TuningTopology has no PCIe rate for it; on
// DGX A100 and H100 the first speed below either (24, 48) is the same.
double top_speed(const TuningTopology& topology) {
  return topology.nodes == 1 ? topology.intra_bw_GBps : topology.nic_bw_GBps;
}

// Channels a node's NICs carry at `speed`, each channel crossing one NIC in each direction.
int nic_channels(const TuningTopology& topology, double speed) {
  return topology.nics_per_node * fit(topology.nic_bw_GBps, speed);
}

// Ring and tree channels that fit at `speed`. A channel loads a GPU's intra path (its NVSwitch
// port, or its PCIe link) by `speed` for each hop it sources; `intra_hops` hops per channel spread
// evenly over the node's GPUs: a full cycle (ppn hops) for a ring on one node, a chain (ppn - 1)
// when the channel enters and leaves through NICs or is a tree. Approximation: NCCL follows every
// path and charges Intel root-complex PCI hops 1.2x, which TuningTopology cannot express.
int path_channels(const TuningTopology& topology, int intra_hops, double speed) {
  int channels = kMaxSearchChannels;
  if (intra_hops > 0) {
    channels = std::min(channels,
                        fit(topology.intra_bw_GBps * topology.gpus_per_node, intra_hops * speed));
  }
  if (topology.nodes > 1) {
    channels = std::min(channels, nic_channels(topology, speed));
  }
  return channels;
}

// NVLS channels that fit at `speed`: one head GPU per channel, every GPU's NVLink carries `speed`
// for each channel and the head's once more (nccl:src/graph/search.cc ncclTopoSearchTryNvls, not
// in fabric-facts: it is what makes the model give the ~480 GB/s NVLS busbw of fabric-facts.md
// §6 on 8 x H100). On several nodes each head also needs its NIC.
int nvls_channels(const TuningTopology& topology, double speed) {
  int channels = std::min(topology.gpus_per_node, fit(topology.intra_bw_GBps, speed) - 1);
  if (topology.nodes > 1) {
    channels = std::min(channels, nic_channels(topology, speed));
  }
  return channels;
}

// The speed, highest first, with the largest channels x speed; an earlier speed wins a tie, as
// NCCL keeps its first solution unless a later one is strictly better. Channels 0 if none fits.
template <typename ChannelsAt>
SearchGraph best_graph(const TuningTopology& topology, ChannelsAt channels_at) {
  SearchGraph best{0, 0.0, 0.0};
  for (double speed : search_speeds(topology)) {
    if (speed > top_speed(topology)) {
      continue;
    }
    const int channels = channels_at(speed);
    if (channels >= 1 && channels * speed > best.channels * best.bw_intra_GBps + kFitSlack) {
      best = {channels, speed, speed};
    }
  }
  return best;
}

// ncclTopoDupChannels (fabric-facts.md §2.5): double the channels at half the speed when the
// speed is at least 25 GB/s, except on SM90+ below 50 GB/s with more than 4 channels.
SearchGraph dup_channels(GpuArch arch, SearchGraph graph) {
  if (graph.bw_intra_GBps < 25.0) {
    return graph;
  }
  if (sm90_or_later(arch) && graph.bw_intra_GBps < 50.0 && graph.channels > 4) {
    return graph;
  }
  const int channels = std::min(2 * graph.channels, kMaxSearchChannels);
  const int split = (channels + graph.channels - 1) / graph.channels;
  return {channels, graph.bw_intra_GBps / split, graph.bw_inter_GBps / split};
}

SearchGraph ring_graph(const TuningTopology& topology) {
  const int hops = topology.nodes == 1 ? topology.gpus_per_node : topology.gpus_per_node - 1;
  SearchGraph graph =
      best_graph(topology, [&](double speed) { return path_channels(topology, hops, speed); });
  if (graph.channels == 0) {
    // Nothing fits: NCCL falls back to one channel; the slowest speed is the nearest
    // documented one.
    const double slowest = search_speeds(topology).back();
    graph = {1, slowest, slowest};
  }
  return dup_channels(topology.arch, graph);
}

// The tree search must find the ring's channel count (NCCL pins min = max = ring channels), so
// duplication cannot add any. A chain loads the links no more than the ring did at the ring's
// speed, so that speed is the floor.
SearchGraph tree_graph(const TuningTopology& topology) {
  const SearchGraph ring = ring_graph(topology);
  const int hops = topology.gpus_per_node - 1;
  for (double speed : search_speeds(topology)) {
    if (speed > ring.bw_intra_GBps && speed <= top_speed(topology) &&
        path_channels(topology, hops, speed) >= ring.channels) {
      return {ring.channels, speed, speed};
    }
  }
  return ring;
}

// The NVLS graph is not duplicated. NCCL's second pass then raises its inter speed alone, one
// array step at a time while the last one is below twice the intra speed and the NICs carry it
// (nccl:src/graph/search.cc; fabric-facts.md §2.5 has only the arrays).
SearchGraph nvls_graph(const TuningTopology& topology) {
  if (!nvls_possible(topology)) {
    return {0, 0.0, 0.0};
  }
  SearchGraph graph =
      best_graph(topology, [&](double speed) { return nvls_channels(topology, speed); });
  if (graph.channels == 0) {
    return graph;
  }
  const auto nics_carry = [&](double speed) {
    return topology.nodes == 1 || nic_channels(topology, speed) >= graph.channels;
  };
  const std::span<const double> speeds = search_speeds(topology);
  auto step = std::find(speeds.begin(), speeds.end(), graph.bw_intra_GBps);
  while (step != speeds.begin() && graph.bw_inter_GBps < 2.0 * graph.bw_intra_GBps) {
    const double faster = *(step - 1);
    if (!nics_carry(faster)) {
      break;
    }
    graph.bw_inter_GBps = faster;
    --step;
  }
  return graph;
}

double ll_max_bw(const TuningTopology& topology) {
  if (topology.nodes == 1) {
    return kLlMaxBwOneNodeGBps[index(topology.arch)];
  }
  const std::size_t column = topology.nodes == 2 ? 0 : 1;
  return topology.cpu == CpuVendor::kAmd ? kLlMaxBwAmdGBps[column] : kLlMaxBwIntelGBps[column];
}

double arch_node_cap(const ArchNodeTable& table, const TuningTopology& topology) {
  return table[index(topology.arch)][node_class(topology.nodes)];
}

// Which (operation, algorithm, protocol) NCCL computes and enables by default (fabric-facts.md
// §2.1, §2.2, §2.4). CollNet is not modelled, so NVLS on several nodes, which needs it, is off.
bool enabled(const TuningTopology& topology,
             CollectiveOp op,
             Algorithm algorithm,
             Protocol protocol) {
  // LL128 is on by default on SM90+ (inter <= PXN, intra <= NVB) and on older GPUs when the
  // inter path is <= PXB. TuningTopology carries no GPU-NIC path type, so the NIC is taken as
  // GDR-close (PIX/PXB, as on DGX) and the intra graph decides, on every arch: NVLink on (so
  // Ampere and Volta with NVLink have it), PCI off.
  if (protocol == Protocol::kLl128 && !topology.intra_nvlink) {
    return false;
  }
  const bool all_reduce = op == CollectiveOp::kAllReduce;
  const bool gather_scatter = is_gather_scatter(op);
  switch (algorithm) {
    case Algorithm::kRing:
      return true;
    case Algorithm::kTree:
      return all_reduce;
    case Algorithm::kNvls:
      return (all_reduce || gather_scatter) && protocol == Protocol::kSimple &&
             nvls_possible(topology) && topology.nodes == 1;
    case Algorithm::kNvlsTree:
      return all_reduce && protocol == Protocol::kSimple && nvls_possible(topology) &&
             topology.nodes > 1;
    case Algorithm::kPat:
      // Default only with one GPU per node; the network is taken as host-driven.
      return gather_scatter && protocol == Protocol::kSimple && topology.gpus_per_node == 1;
  }
  RAILSIM_UNREACHABLE("every Algorithm has enablement rules");
}

double ring_latency_us(const TuningTopology& topology,
                       CollectiveOp op,
                       Protocol protocol,
                       double intra_us,
                       double inter_us) {
  const double base = base_latency_us(Algorithm::kRing, protocol);
  if (op == CollectiveOp::kBroadcast) {
    // NCCL adds nsteps hops only when the channels differ; the approximated search always finds
    // identical ones.
    const HopKind hop = topology.nodes == 1
                            ? (topology.intra_nvlink ? HopKind::kNvlink : HopKind::kPci)
                            : HopKind::kNet;
    return base + hop_latency_us(hop, Algorithm::kRing, protocol);
  }
  const double overhead = topology.nodes > 1 ? net_overhead_us(topology.cpu, protocol) : 0.0;
  const int steps = model_steps(op, ranks_of(topology));
  const int inter_steps = topology.nodes == 1              ? 0
                          : op == CollectiveOp::kAllReduce ? 2 * (topology.nodes - 1)
                                                           : topology.nodes - 1;
  return base + (steps - inter_steps) * std::max(intra_us, overhead) + inter_steps * inter_us;
}

// The latency formulas of fabric-facts.md §2.3. NIC-reported latencyInter is 0 for the IB and
// socket plugins and is left out.
double model_latency_us(const TuningTopology& topology,
                        CollectiveOp op,
                        Algorithm algorithm,
                        Protocol protocol) {
  const int ppn = topology.gpus_per_node;
  const double base = base_latency_us(algorithm, protocol);
  const double intra =
      hop_latency_us(topology.intra_nvlink ? HopKind::kNvlink : HopKind::kPci, algorithm, protocol);
  // With one GPU per node latencies are fully exposed: NCCL takes Tree's NET latency for all.
  const double inter =
      hop_latency_us(HopKind::kNet, ppn == 1 ? Algorithm::kTree : algorithm, protocol);
  const int levels = log2_floor(topology.nodes);
  switch (algorithm) {
    case Algorithm::kRing:
      return ring_latency_us(topology, op, protocol, intra, inter);
    case Algorithm::kTree:
      return base + 2.0 * ((ppn - 1) * intra + levels * inter);
    case Algorithm::kNvls:
      // Enabled on one node only, so no interLat term.
      return intra;
    case Algorithm::kNvlsTree:
      return base + intra + 2.0 * levels * inter;
    case Algorithm::kPat:
      return base + levels * inter / 3.5 + 2.8 * ranks_of(topology);
  }
  RAILSIM_UNREACHABLE("every Algorithm has a latency formula");
}

// Per-channel NVLS / NVLS Tree bandwidth (fabric-facts.md §2.4).
double nvls_channel_bw(const TuningTopology& topology,
                       CollectiveOp op,
                       Algorithm algorithm,
                       const SearchGraph& graph) {
  const double ppn = topology.gpus_per_node;
  double intra = graph.bw_intra_GBps * kNvlsEfficiency[index(topology.arch)] *
                 (graph.channels - 1) / graph.channels;
  intra *= op == CollectiveOp::kAllReduce ? 2.0 : (ppn - 1.0) / ppn;
  if (algorithm == Algorithm::kNvls) {
    return std::min(intra, graph.bw_inter_GBps);
  }
  const double inter = graph.bw_inter_GBps * (topology.nodes <= 2 ? 2.0 : 1.0);
  return std::min({intra, inter, arch_node_cap(kNvlsTreeCapGBps, topology)});
}

// The bandwidth model of fabric-facts.md §2.4, in GB/s: busBw, its refinements in order, then
// the conversion to the algorithm bandwidth. The per-size Tree correction factor is left out:
// fabric-facts gives only its range (0.4-1.0), not its table.
double model_bandwidth(const TuningTopology& topology,
                       CollectiveOp op,
                       Algorithm algorithm,
                       Protocol protocol,
                       const SearchGraph& graph) {
  const int channels = graph.channels;
  double bus_bw = 0.0;
  if (is_nvls(algorithm)) {
    bus_bw = channels * nvls_channel_bw(topology, op, algorithm, graph);
  } else {
    bus_bw = channels * (topology.nodes <= 2 ? graph.bw_intra_GBps : graph.bw_inter_GBps);
  }
  if (algorithm == Algorithm::kRing && protocol == Protocol::kLl) {
    bus_bw = std::min(ll_max_bw(topology), bus_bw * 0.5);
  }
  if (algorithm == Algorithm::kRing && protocol == Protocol::kLl128) {
    bus_bw = std::min(bus_bw * 0.92, channels * kRingLl128CapGBps[index(topology.arch)]);
  }
  if (algorithm == Algorithm::kTree) {
    bus_bw = std::min(bus_bw * 0.92, channels * arch_node_cap(kTreeCapGBps, topology));
    if (protocol == Protocol::kLl) {
      bus_bw = std::min(bus_bw / 3.8, ll_max_bw(topology));
    }
    if (protocol == Protocol::kLl128) {
      bus_bw = std::min(bus_bw * (topology.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                        channels * arch_node_cap(kTreeLl128CapGBps, topology));
    }
    // NCCL's search settles on the plain TREE pattern for a single GPU per node; elsewhere the
    // balanced tree it tries first is assumed found.
    if (topology.gpus_per_node == 1) {
      bus_bw *= 0.85;
    }
  }
  if (algorithm == Algorithm::kPat) {
    bus_bw *= 0.75;
  }
  if (algorithm != Algorithm::kRing && is_gather_scatter(op)) {
    return bus_bw;
  }
  if (algorithm == Algorithm::kRing || is_nvls(algorithm)) {
    const int ranks = ranks_of(topology);
    return bus_bw * ranks / model_steps(op, ranks);
  }
  return bus_bw * 0.5;
}

// Multi-node Ring Simple AllReduce "plateau effect" (fabric-facts.md §2.3): latency x1.4 on
// SM80+, x1.9 before, once nBytes / (comm channels x ranks) >= 64.
double plateau_factor(const TuningTopology& topology,
                      CollectiveOp op,
                      Algorithm algorithm,
                      Protocol protocol,
                      double bytes) {
  if (algorithm != Algorithm::kRing || protocol != Protocol::kSimple || topology.nodes == 1 ||
      op != CollectiveOp::kAllReduce) {
    return 1.0;
  }
  const double lanes =
      static_cast<double>(comm_channels(topology, Algorithm::kRing)) * ranks_of(topology);
  if (bytes < 64.0 * lanes) {
    return 1.0;
  }
  return topology.arch == GpuArch::kVolta ? 1.9 : 1.4;
}

// The upper-cased alphanumeric words of a model name: "H100-SXM5-80GB" -> H100, SXM5, 80GB.
template <typename Visit>
void for_each_word(const std::string& name, Visit visit) {
  std::string word;
  for (char c : name + ' ') {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0) {
      word += static_cast<char>(std::toupper(byte));
    } else if (!word.empty()) {
      visit(std::string_view(word));
      word.clear();
    }
  }
}

struct GpuFamily {
  std::string_view name;
  GpuArch arch = GpuArch::kVolta;
};

// The GPU families fabric-facts.md names (§4.1, §4.4, §6) and their SM generation, which picks
// NCCL's table row (compCap >= 100, >= 90, >= 80, else Volta).
constexpr GpuFamily kGpuFamilies[] = {
    {"V100", GpuArch::kVolta},     {"A100", GpuArch::kAmpere},     {"A800", GpuArch::kAmpere},
    {"H100", GpuArch::kHopper},    {"H200", GpuArch::kHopper},     {"H800", GpuArch::kHopper},
    {"H20", GpuArch::kHopper},     {"B200", GpuArch::kBlackwell},  {"GB200", GpuArch::kBlackwell},
    {"B300", GpuArch::kBlackwell}, {"GB300", GpuArch::kBlackwell},
};

}  // namespace

std::optional<GpuArch> gpu_arch_of(const std::string& gpu_model) {
  std::optional<GpuArch> arch;
  for_each_word(gpu_model, [&](std::string_view word) {
    for (const GpuFamily& family : kGpuFamilies) {
      if (!arch && word == family.name) {
        arch = family.arch;
      }
    }
  });
  return arch;
}

CpuVendor cpu_vendor_of(const std::string& cpu_model) {
  CpuVendor vendor = CpuVendor::kOther;
  for_each_word(cpu_model, [&](std::string_view word) {
    if (word == "INTEL" || word == "XEON") {
      vendor = CpuVendor::kIntel;
    }
    if (word == "AMD" || word == "EPYC") {
      vendor = CpuVendor::kAmd;
    }
  });
  return vendor;
}

SearchGraph search_graph(const TuningTopology& topology, Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kRing:
      return ring_graph(topology);
    case Algorithm::kTree:
    case Algorithm::kPat:
      return tree_graph(topology);
    case Algorithm::kNvls:
    case Algorithm::kNvlsTree:
      return nvls_graph(topology);
  }
  RAILSIM_UNREACHABLE("every Algorithm has a graph");
}

int comm_channels(const TuningTopology& topology, Algorithm algorithm) {
  if (is_nvls(algorithm)) {
    if (!nvls_possible(topology)) {
      return 0;
    }
    if (topology.arch == GpuArch::kBlackwell) {
      return topology.nodes == 1 ? 24 : 32;
    }
    return 16;
  }
  const SearchGraph ring = ring_graph(topology);
  int channels = std::min(2 * ring.channels, kMaxChannels);
  // "4 compute channels per search channel" on Hopper+ multi-node rings (fabric-facts.md §2.5).
  if (sm90_or_later(topology.arch) && topology.nodes > 1 && ring.bw_intra_GBps > 45.0 &&
      channels < 16) {
    channels = std::min(2 * channels, kMaxChannels);
  }
  return channels;
}

double base_latency_us(Algorithm algorithm, Protocol protocol) {
  return kBaseLatencyUs[index(algorithm)][index(protocol)];
}

double hop_latency_us(HopKind hop, Algorithm algorithm, Protocol protocol) {
  return kHopLatencyUs[index(hop)][index(algorithm)][index(protocol)];
}

double net_overhead_us(CpuVendor cpu, Protocol protocol) {
  const double overhead = cpu == CpuVendor::kAmd ? 2.0 : 1.0;
  return protocol == Protocol::kSimple ? 3.0 * overhead : overhead;
}

std::optional<AlgoCost> algo_cost(const TuningTopology& topology,
                                  CollectiveOp op,
                                  Algorithm algorithm,
                                  Protocol protocol) {
  if (ranks_of(topology) < 2 || !enabled(topology, op, algorithm, protocol)) {
    return std::nullopt;
  }
  const SearchGraph graph = search_graph(topology, algorithm);
  // NVLS and NVLS Tree need at least 2 channels (fabric-facts.md §2.1).
  if (is_nvls(algorithm) && graph.channels < 2) {
    return std::nullopt;
  }
  return AlgoCost{model_latency_us(topology, op, algorithm, protocol),
                  model_bandwidth(topology, op, algorithm, protocol, graph)};
}

std::optional<AlgoChoice> select_algorithm(const TuningTopology& topology,
                                           CollectiveOp op,
                                           double bytes,
                                           const std::vector<Algorithm>& allowed_algorithms,
                                           const std::vector<Protocol>& allowed_protocols) {
  std::optional<AlgoChoice> best;
  for (Algorithm algorithm : kAlgorithms) {
    if (std::find(allowed_algorithms.begin(), allowed_algorithms.end(), algorithm) ==
        allowed_algorithms.end()) {
      continue;
    }
    for (Protocol protocol : kProtocols) {
      if (std::find(allowed_protocols.begin(), allowed_protocols.end(), protocol) ==
          allowed_protocols.end()) {
        continue;
      }
      std::optional<AlgoCost> cost = algo_cost(topology, op, algorithm, protocol);
      if (!cost) {
        continue;
      }
      cost->latency_us *= plateau_factor(topology, op, algorithm, protocol, bytes);
      if (!best || cost->time_us(bytes) < best->cost.time_us(bytes)) {
        best = AlgoChoice{algorithm, protocol, *cost};
      }
    }
  }
  return best;
}

int trimmed_channels(
    int channels, Algorithm algorithm, Protocol protocol, int ranks, double bytes) {
  RAILSIM_ASSERT(channels >= 1, "trimming needs at least one channel");
  if (algorithm != Algorithm::kRing && algorithm != Algorithm::kTree) {
    return channels;
  }
  double per_thread = kThreadThresholdBytes[index(protocol)];
  if (algorithm == Algorithm::kRing && protocol == Protocol::kLl) {
    per_thread *= ranks;
  }
  const double per_channel = kProtocolMaxThreads[index(protocol)] * per_thread;
  int kept = channels;
  while (kept >= 2 && bytes < kept * per_channel) {
    --kept;
  }
  return kept;
}

int thread_count(Algorithm algorithm, Protocol protocol) {
  if (algorithm != Algorithm::kRing) {
    return kMaxThreads;
  }
  const int threads = kProtocolMaxThreads[index(protocol)];
  return protocol == Protocol::kSimple ? threads + kWarpSize : threads;
}

std::optional<double> per_channel_cap_GBps(const TuningTopology& topology,
                                           Algorithm algorithm,
                                           Protocol protocol) {
  switch (algorithm) {
    case Algorithm::kRing:
      if (protocol == Protocol::kLl128) {
        return kRingLl128CapGBps[index(topology.arch)];
      }
      return std::nullopt;
    case Algorithm::kTree:
      // Every Tree AllReduce is held to perChMaxTreeBw; LL128 also to perChMaxTreeLL128Bw.
      if (protocol == Protocol::kLl128) {
        return std::min(arch_node_cap(kTreeCapGBps, topology),
                        arch_node_cap(kTreeLl128CapGBps, topology));
      }
      return arch_node_cap(kTreeCapGBps, topology);
    case Algorithm::kNvlsTree:
      if (nvls_possible(topology) && topology.nodes > 1) {
        return arch_node_cap(kNvlsTreeCapGBps, topology);
      }
      return std::nullopt;
    case Algorithm::kNvls:
    case Algorithm::kPat:
      return std::nullopt;
  }
  RAILSIM_UNREACHABLE("every Algorithm has caps");
}

std::optional<double> total_cap_GBps(const TuningTopology& topology,
                                     Algorithm algorithm,
                                     Protocol protocol) {
  if (protocol == Protocol::kLl &&
      (algorithm == Algorithm::kRing || algorithm == Algorithm::kTree)) {
    return ll_max_bw(topology);
  }
  return std::nullopt;
}

double wire_bytes_per_payload_byte(Protocol protocol) {
  return kWireBytesPerPayloadByte[index(protocol)];
}

double nvls_efficiency(GpuArch arch) { return kNvlsEfficiency[index(arch)]; }

}  // namespace railsim::models
