// File: models/collective/nccl_tuning.hpp
// NCCL's own performance model, as nccl:src/graph/tuning.cc, search.cc and src/enqueue.cc
// compute it: the base and per-hop latencies of each algorithm x protocol, the bandwidth NCCL
// believes each one gets, the graph search's channel count and per-channel bandwidth, the
// per-call channel trimming, and the selection of the fastest algorithm x protocol by predicted
// time. Implemented in nccl_tuning.cpp (selection, caps), nccl_channel_search.cpp (channels and
// threads), over the tables of nccl_tuner_tables.hpp.
//
// The simulator does not take its answers from this model: it moves the bytes over the links.
// It uses the model for what NCCL itself decides with it (which algorithm, which protocol, how
// many channels) and for the software latencies that the links do not carry (per-hop and base
// latencies, in microseconds as NCCL's tables hold them).
#pragma once

#include "models/collective/collective_types.hpp"

#include <optional>
#include <string>
#include <vector>

namespace railsim::models {

// GPU generation: selects NCCL's per-architecture tables (SM70, SM80, SM90, SM100).
enum class GpuArch { kVolta, kAmpere, kHopper, kBlackwell };

// The host CPU vendor: NCCL's multi-node LL bandwidth cap and network overhead depend on it.
enum class CpuVendor { kIntel, kAmd, kOther };

// The architecture of a GPU model name ("H100 SXM5", "A100-SXM4-80GB", "B200", ...); nullopt
// when the name is not one NCCL's tables distinguish.
std::optional<GpuArch> gpu_arch_of(const std::string& gpu_model);

// The vendor of a CPU model name ("Intel Xeon Platinum 8480C", "AMD EPYC 7742"); kOther if
// neither.
CpuVendor cpu_vendor_of(const std::string& cpu_model);

// What NCCL's topology detection would know about the system, in NCCL's own model units.
struct TuningTopology {
  GpuArch arch = GpuArch::kHopper;
  CpuVendor cpu = CpuVendor::kIntel;
  int nodes = 1;
  int gpus_per_node = 8;         // ranks per node (ppn)
  bool intra_nvlink = true;      // the intra-node graph is NVLink (else PCI)
  bool nvswitch = true;          // GPUs share an NVSwitch (NVLS possible on SM90+)
  double intra_bw_GBps = 370.8;  // NCCL's bandwidth of a GPU's intra-node path: NVLink links x
                                 // per-link model rate, or the PCIe model rate
  int nics_per_node = 8;         // compute NICs the communicator's GPUs use
  int nics_per_gpu = 1;          // NICs a GPU spreads its channels over (nic_affinity.hpp)
  double nic_bw_GBps = 50.0;     // NCCL's per-NIC model rate: port speed (Mb/s) / 8000
  // The fabric's switches reduce (InfiniBand SHARP) and NCCL runs CollNet over them
  // (NCCL_COLLNET_ENABLE=1 with the SHARP plugin): a fabric's `sharp` key.
  bool collnet = false;
};

// The graph search's result for one pattern: channels and their per-channel bandwidth.
struct SearchGraph {
  int channels = 1;            // graph nChannels, before the comm duplicates them
  double bw_intra_GBps = 0.0;  // per channel
  double bw_inter_GBps = 0.0;  // per channel (= intra on one node, except for NVLS)
};

// NCCL's graph search, approximated: the speed arrays of the architecture tried highest first,
// as many channels at a speed as the bottleneck (intra path, and on several nodes one NIC per
// channel) allows, keeping the largest channels x speed; then ncclTopoDupChannels.
// Tree (and PAT, which runs on the tree graph) keeps the ring's channel count, as NCCL pins it,
// at the highest speed that fits; so does CollNet Chain, whose graph is a tree's. NVLS and NVLS
// Tree share the NVLS graph: one channel per head GPU, no duplication, its inter speed raised as
// NCCL's second pass does; 0 channels where NVLS is impossible (no NVSwitch or NVLink, before
// SM90).
SearchGraph search_graph(const TuningTopology& topology, Algorithm algorithm);

// Channels the communicator runs for an algorithm: the graph's, duplicated as NCCL does when it
// connects rings and trees (and again on Hopper+ multi-node rings), at most 64; NVLS: 16 on
// SM90, 24/32 on SM100, 0 where NVLS is impossible. Ring, Tree, PAT and CollNet share the
// ring's count.
int comm_channels(const TuningTopology& topology, Algorithm algorithm);

// Which link class an algorithm's per-hop latency comes from.
enum class HopKind { kNvlink, kPci, kNet };

double base_latency_us(Algorithm algorithm, Protocol protocol);
double hop_latency_us(HopKind hop, Algorithm algorithm, Protocol protocol);

// NCCL's PAT latency model (nccl:src/graph/tuning.cc): each dimension costs the network hop
// latency divided by kPatHopDivisor, and each rank kPatRankUs (the handling of its portion).
inline constexpr double kPatHopDivisor = 3.5;
inline constexpr double kPatRankUs = 2.8;

// NCCL's CollNet Direct latency model (nccl:src/graph/tuning.cc): a head serves its node's other
// GPUs one after another, kCollNetDirectPeerUs each way per peer ("arity serialization").
inline constexpr double kCollNetDirectPeerUs = 0.4;

// NCCL_NET_OVERHEAD: 1 us Intel and other, 2 us AMD, x3 for Simple.
double net_overhead_us(CpuVendor cpu, Protocol protocol);

// The cost of one (algorithm, protocol) for an operation in NCCL's model: t = latency_us +
// bytes / (1000 x bandwidth_GBps), in microseconds; nullopt where NCCL disables the pair (Tree
// for anything but AllReduce, NVLS without NVSwitch, LL128 where it is off by default, ...) and
// for a single rank, where NCCL runs no algorithm. latency_us and bandwidth_GBps leave out what
// depends on the size (sized_cost).
struct AlgoCost {
  double latency_us = 0.0;
  double bandwidth_GBps = 0.0;  // the algorithm bandwidth NCCL divides the bytes by

  double time_us(double bytes) const { return latency_us + bytes / (1000.0 * bandwidth_GBps); }
};

std::optional<AlgoCost> algo_cost(const TuningTopology& topology,
                                  CollectiveOp op,
                                  Algorithm algorithm,
                                  Protocol protocol);

// The cost NCCL's time estimate (ncclTopoGetAlgoTime) uses for a call of `bytes`: algo_cost with
// the size-dependent terms, the plateau factor of multi-node Ring Simple AllReduce on its latency
// and the Tree AllReduce correction factor (0.4-1.0 by size, from NCCL's measurements) on its
// bandwidth.
std::optional<AlgoCost> sized_cost(const TuningTopology& topology,
                                   CollectiveOp op,
                                   Algorithm algorithm,
                                   Protocol protocol,
                                   double bytes);

// The selection NCCL's tuner makes: the enabled pair among the allowed ones with the smallest
// predicted time for `bytes` (nccl-tests' size: max of send and receive bytes). Ties go to the
// earlier algorithm, then protocol, in kAlgorithms / kProtocols order. nullopt if none of the
// allowed pairs is enabled. The chosen cost is sized_cost's.
struct AlgoChoice {
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
  AlgoCost cost;
};

std::optional<AlgoChoice> select_algorithm(const TuningTopology& topology,
                                           CollectiveOp op,
                                           double bytes,
                                           const std::vector<Algorithm>& allowed_algorithms,
                                           const std::vector<Protocol>& allowed_protocols);

// Per-call trimming (enqueue.cc): channels dropped while bytes < channels x threads x the
// protocol's per-thread threshold (Simple 64 B, LL 8 B x ranks for rings, LL128 8 B), never
// below 1. `threads` is the protocol's maximum (Simple 512, LL 512, LL128 640), before the sync
// warps thread_count adds. Only Ring, Tree and CollNet Chain are trimmed so; NVLS, NVLS Tree and
// PAT keep theirs, CollNet Direct has its own (collnet_direct_channels).
int trimmed_channels(int channels, Algorithm algorithm, Protocol protocol, int ranks, double bytes);

// CollNet Direct's per-call trimming (enqueue.cc): channels dropped while bytes < channels x 640
// threads x heads x 512 B, down to 16, then 8, 4, 2, 1, the per-thread threshold halved at 1.5
// times each of those.
int collnet_direct_channels(int channels, int heads, double bytes);

// Threads per channel NCCL launches for an algorithm x protocol (nccl:src/include/device.h,
// src/graph/tuning.cc, src/enqueue.cc) before any per-call halving: Ring Simple 512 + 1 sync
// warp, Ring LL 512, Ring LL128 640; Tree, PAT, NVLS and NVLS Tree 640. The 256-thread Simple
// default of rings slower than 12 GB/s in all needs the topology, which this signature lacks, and
// is left out.
int thread_count(Algorithm algorithm, Protocol protocol);

// GPU-side bandwidth caps of a protocol, in GB/s: what a channel's copy loop can move whatever
// the links give (Ring LL: llMaxBw for the whole call; Ring LL128: perChMaxRingLL128Bw per
// channel; Tree: perChMaxTreeBw per channel, for LL128 the smaller of it and
// perChMaxTreeLL128Bw; Tree LL: llMaxBw in all; NVLS Tree on several nodes: perChMaxNVLSTreeBw
// per channel). nullopt when the protocol has no cap for that algorithm.
// NOLINTNEXTLINE(readability-identifier-naming): GBps spells the unit, as the fields do.
std::optional<double> per_channel_cap_GBps(const TuningTopology& topology,
                                           Algorithm algorithm,
                                           Protocol protocol);
// NOLINTNEXTLINE(readability-identifier-naming): GBps spells the unit, as the fields do.
std::optional<double> total_cap_GBps(const TuningTopology& topology,
                                     Algorithm algorithm,
                                     Protocol protocol);

// Wire bytes per payload byte of a protocol's line format: LL 16/8, LL128 128/120, Simple 1.
double wire_bytes_per_payload_byte(Protocol protocol);

// NCCL's NVLS efficiency (nvlsEfficiency in nccl:src/graph/tuning.cc):
// the share of a GPU's NVLink rate that multimem traffic achieves, 0.85 on Hopper and 0.74 on
// Blackwell, relative to the rate NCCL's rings get (its model applies it to the same NVLink
// bandwidth rings use). 0 before SM90, which has no NVLS.
double nvls_efficiency(GpuArch arch);

}  // namespace railsim::models
