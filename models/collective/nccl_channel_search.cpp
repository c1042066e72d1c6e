// File: models/collective/nccl_channel_search.cpp
// NCCL's channel counts, approximated: the graph search over the architecture's speed arrays
// (nccl:src/graph/search.cc), the duplication when rings and trees are connected
// (nccl:src/graph/connect.cc), the per-call trimming and the threads per channel
// (nccl:src/enqueue.cc). Declared in nccl_tuning.hpp.
#include "models/collective/nccl_tuner_tables.hpp"
#include "models/collective/nccl_tuning.hpp"
#include "sim/assert.hpp"
#include "sim/ceil_div.hpp"

#include <algorithm>
#include <cmath>
#include <span>

namespace railsim::models {

using namespace nccl;

namespace {

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
// for each channel and the head's once more (nccl:src/graph/search.cc ncclTopoSearchTryNvls):
// what makes the model give the ~480 GB/s NVLS busbw measured on 8 x H100 (NVIDIA/nccl#1455,
// docs/validation.md). On several nodes each head also needs its NIC.
int nvls_channels(const TuningTopology& topology, double speed) {
  int channels = std::min(topology.gpus_per_node, fit(topology.intra_bw_GBps, speed) - 1);
  if (topology.nodes > 1) {
    channels = std::min(channels, nic_channels(topology, speed));
  }
  return channels;
}

// The speed, highest first, with the largest channels x speed; an earlier speed wins a tie, as
// NCCL keeps its first solution unless a later one is strictly better. Once it has a solution,
// NCCL lowers the speed only while the next one is above kSlowerSpeedRatio of that solution's,
// so it does not trade one fast channel for many slow ones (2 x 1 A100 PCIe on one 200G NIC:
// 1 channel at 24 GB/s, not 5 at 5, as nccl-tests issue 350's "2 coll channels" shows).
// Channels 0 if none fits.
template <typename ChannelsAt>
SearchGraph best_graph(const TuningTopology& topology, ChannelsAt channels_at) {
  SearchGraph best{0, 0.0, 0.0};
  for (double speed : search_speeds(topology)) {
    if (speed > top_speed(topology)) {
      continue;
    }
    if (best.channels > 0 && speed <= kSlowerSpeedRatio * best.bw_intra_GBps) {
      break;
    }
    const int channels = channels_at(speed);
    if (channels >= 1 && channels * speed > best.channels * best.bw_intra_GBps + kFitSlack) {
      best = {channels, speed, speed};
    }
  }
  return best;
}

// ncclTopoDupChannels (nccl:src/graph/search.cc): double the channels at half the speed when the
// speed is at least 25 GB/s, except on SM90+ below 50 GB/s with more than 4 channels.
SearchGraph dup_channels(GpuArch arch, SearchGraph graph) {
  if (graph.bw_intra_GBps < 25.0) {
    return graph;
  }
  if (sm90_or_later(arch) && graph.bw_intra_GBps < 50.0 && graph.channels > 4) {
    return graph;
  }
  const int channels = std::min(2 * graph.channels, kMaxSearchChannels);
  const int split = sim::ceil_div(channels, graph.channels);
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
// (nccl:src/graph/search.cc).
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

// CollNet Direct's graph: a channel per head, each head a GPU with a NIC of its own that carries
// the channel, at most NCCL_MAX_DIRECT_ARITY + 1 (nccl:src/graph/search.cc,
// NCCL_TOPO_PATTERN_COLLNET_DIRECT). Its calls run on the communicator's channels, each moving a
// piece per head.
SearchGraph collnet_direct_graph(const TuningTopology& topology) {
  if (!topology.nvswitch) {
    return {0, 0.0, 0.0};
  }
  return best_graph(topology, [&](double speed) {
    return std::min({topology.gpus_per_node, kMaxCollNetGpus, nic_channels(topology, speed)});
  });
}

}  // namespace

SearchGraph search_graph(const TuningTopology& topology, Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kRing:
      return ring_graph(topology);
    case Algorithm::kTree:
    case Algorithm::kPat:
    case Algorithm::kCollNetChain:
      return tree_graph(topology);
    case Algorithm::kNvls:
    case Algorithm::kNvlsTree:
      return nvls_graph(topology);
    case Algorithm::kCollNetDirect:
      return collnet_direct_graph(topology);
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
  // "4 compute channels per search channel" on Hopper+ multi-node rings (nccl:src/graph/search.cc,
  // connect.cc).
  if (sm90_or_later(topology.arch) && topology.nodes > 1 && ring.bw_intra_GBps > 45.0 &&
      channels < 16) {
    channels = std::min(2 * channels, kMaxChannels);
  }
  return channels;
}

int trimmed_channels(
    int channels, Algorithm algorithm, Protocol protocol, int ranks, double bytes) {
  RAILSIM_ASSERT(channels >= 1, "trimming needs at least one channel");
  if (algorithm != Algorithm::kRing && algorithm != Algorithm::kTree &&
      algorithm != Algorithm::kCollNetChain) {
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

int collnet_direct_channels(int channels, int heads, double bytes) {
  RAILSIM_ASSERT(channels >= 1 && heads >= 1, "trimming needs a channel and a head");
  // Below 1.5 x each switch point (16, 8, 4, 2, 1 channels) the per-thread threshold halves.
  double threshold = kCollNetThreadThresholdBytes;
  int kept = channels;
  for (int switch_point = 16; switch_point >= 1; switch_point /= 2) {
    bool short_of_work = true;
    while ((short_of_work = bytes < kept * kMaxThreads * heads * threshold) &&
           kept > switch_point) {
      if (2 * kept == 3 * switch_point) {
        threshold /= 2.0;
      }
      --kept;
    }
    if (!short_of_work) {
      break;
    }
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

}  // namespace railsim::models
