// File: models/collective/nccl_tuning.cpp
// NCCL's performance model (nccl:src/graph/tuning.cc, src/enqueue.cc): which algorithm x protocol
// pairs are enabled, their latencies and bandwidths, the selection by predicted time, the
// protocols' caps; and the GPU architecture and CPU vendor of model names. The channel search
// is nccl_channel_search.cpp, the tables nccl_tuner_tables.hpp. Where NCCL's sources hold a rule
// the model cannot follow, the nearest behaviour stands in and the comment says so.
#include "models/collective/nccl_tuning.hpp"

#include "models/collective/nccl_tuner_tables.hpp"
#include "sim/assert.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace railsim::models {

using namespace nccl;

namespace {

// NCCL's log2i: the floor of log2, so 12 nodes count 3 tree levels.
int log2_floor(int n) {
  int levels = 0;
  while (n > 1) {
    n /= 2;
    ++levels;
  }
  return levels;
}

// nsteps of the model (nccl:src/graph/tuning.cc): AllReduce 2(n-1), AG/RS n-1, Broadcast and Reduce
// n.
int model_steps(CollectiveOp op, int ranks) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return 2 * (ranks - 1);
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
      return ranks - 1;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
      return ranks;
    case CollectiveOp::kAllToAll:
    case CollectiveOp::kSendRecv:
    case CollectiveOp::kGather:
    case CollectiveOp::kScatter:
      break;
  }
  RAILSIM_UNREACHABLE("the tuner prices collectives only (enabled() refuses p2p)");
}

// Which (operation, algorithm, protocol) NCCL computes and enables by default
// (nccl:src/graph/tuning.cc, src/enqueue.cc). NVLS on several nodes runs together with CollNet,
// which is not modelled, so it is off.
bool enabled(const TuningTopology& topology,
             CollectiveOp op,
             Algorithm algorithm,
             Protocol protocol) {
  if (is_point_to_point(op)) {
    return false;  // NCCL runs p2p on its own channels, outside its tuner
  }
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
    case Algorithm::kCollNetDirect:
      return collnet_possible(topology, op, protocol) && topology.nvswitch;
    case Algorithm::kCollNetChain:
      return collnet_possible(topology, op, protocol);
  }
  RAILSIM_UNREACHABLE("every Algorithm has enablement rules");
}

double ring_latency_us(const TuningTopology& topology,
                       CollectiveOp op,
                       Protocol protocol,
                       double intra_us,
                       double inter_us) {
  const double base = base_latency_us(Algorithm::kRing, protocol);
  if (is_ring_chain(op)) {
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

// The latency formulas of nccl:src/graph/tuning.cc. NIC-reported latencyInter is 0 for the IB and
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
      return base + levels * inter / kPatHopDivisor + kPatRankUs * ranks_of(topology);
    case Algorithm::kCollNetDirect:
      return base + 2.0 * (std::min(1, ppn - 1) * intra + (ppn - 1) * kCollNetDirectPeerUs) + inter;
    case Algorithm::kCollNetChain:
      return base + 2.0 * (ppn - 1) * intra + inter;
  }
  RAILSIM_UNREACHABLE("every Algorithm has a latency formula");
}

// Per-channel NVLS / NVLS Tree bandwidth (nccl:src/graph/tuning.cc).
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

// The bandwidth model of nccl:src/graph/tuning.cc, in GB/s: busBw, its refinements in order,
// then the conversion to the algorithm bandwidth. The per-size Tree correction factor is
// sized_cost's.
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
    bus_bw = channels * (topology.nodes <= 2 || is_collnet(algorithm) ? graph.bw_intra_GBps
                                                                      : graph.bw_inter_GBps);
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
  if (algorithm == Algorithm::kCollNetDirect) {
    // "Collnet+Direct requires all GPUs to have a local NIC to work at full speed": GPUs per
    // head f derate it by f - (f - 1) / 2, and SM90+ by a further 0.85.
    const double f = static_cast<double>(topology.gpus_per_node) / channels;
    bus_bw /= f - (f - 1.0) / 2.0;
    if (sm90_or_later(topology.arch)) {
      bus_bw *= 0.85;
    }
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

// Multi-node Ring Simple AllReduce "plateau effect" (nccl:src/graph/tuning.cc): latency x1.4 on
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

// treeCorrectionFactor (nccl:src/graph/tuning.cc): Tree AllReduce bandwidth derated by size, at
// log2(bytes / 64) for 64 B to 512 MiB.
double tree_correction(CollectiveOp op, Algorithm algorithm, Protocol protocol, double bytes) {
  if (algorithm != Algorithm::kTree || op != CollectiveOp::kAllReduce || bytes < 64.0) {
    return 1.0;
  }
  // NCCL's log2i of the size in 64-byte units: the floor.
  const auto units = static_cast<std::uint64_t>(bytes) >> 6U;
  const int log_size = static_cast<int>(std::bit_width(units)) - 1;
  const auto& row = kTreeCorrection[index(protocol)];
  return log_size < static_cast<int>(row.size()) ? row[static_cast<std::size_t>(log_size)] : 1.0;
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

// GPU families and their SM generation (NVIDIA's CUDA compute capabilities), which picks NCCL's
// table row (compCap >= 100, >= 90, >= 80, else Volta: nccl:src/graph/tuning.cc).
constexpr GpuFamily kGpuFamilies[] = {
    {"V100", GpuArch::kVolta},      {"A100", GpuArch::kAmpere},    {"A800", GpuArch::kAmpere},
    {"H100", GpuArch::kHopper},     {"H200", GpuArch::kHopper},    {"H800", GpuArch::kHopper},
    {"H20", GpuArch::kHopper},      {"GH200", GpuArch::kHopper},   {"B200", GpuArch::kBlackwell},
    {"GB200", GpuArch::kBlackwell}, {"B300", GpuArch::kBlackwell}, {"GB300", GpuArch::kBlackwell},
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
  // NVLS and NVLS Tree need at least 2 channels (nccl:src/graph/tuning.cc).
  if (is_nvls(algorithm) && graph.channels < 2) {
    return std::nullopt;
  }
  return AlgoCost{model_latency_us(topology, op, algorithm, protocol),
                  model_bandwidth(topology, op, algorithm, protocol, graph)};
}

std::optional<AlgoCost> sized_cost(const TuningTopology& topology,
                                   CollectiveOp op,
                                   Algorithm algorithm,
                                   Protocol protocol,
                                   double bytes) {
  std::optional<AlgoCost> cost = algo_cost(topology, op, algorithm, protocol);
  if (cost) {
    cost->latency_us *= plateau_factor(topology, op, algorithm, protocol, bytes);
    cost->bandwidth_GBps *= tree_correction(op, algorithm, protocol, bytes);
  }
  return cost;
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
      const std::optional<AlgoCost> cost = sized_cost(topology, op, algorithm, protocol, bytes);
      if (!cost) {
        continue;
      }
      if (!best || cost->time_us(bytes) < best->cost.time_us(bytes)) {
        best = AlgoChoice{algorithm, protocol, *cost};
      }
    }
  }
  return best;
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
    case Algorithm::kCollNetDirect:
    case Algorithm::kCollNetChain:
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
