// File: models/collective/collective_run.cpp
// From a request to a collective in flight: NCCL's choices, then the ring, tree, NVLS, PAT or
// point-to-point plan on the links, run by an executor the call owns; run_collective waits for it.
#include "models/collective/collective_run.hpp"

#include "models/collective/collective_timing.hpp"
#include "models/collective/collnet_plan.hpp"
#include "models/collective/group_pipeline.hpp"
#include "models/collective/nccl_tuner_tables.hpp"
#include "models/collective/nvls_lowering.hpp"
#include "models/collective/nvls_plan.hpp"
#include "models/collective/nvls_tree_lowering.hpp"
#include "models/collective/nvls_tree_plan.hpp"
#include "models/collective/p2p_lowering.hpp"
#include "models/collective/p2p_plan.hpp"
#include "models/collective/pat_lowering.hpp"
#include "models/collective/pat_plan.hpp"
#include "models/collective/ring_layout.hpp"
#include "models/collective/ring_lowering.hpp"
#include "models/collective/ring_plan.hpp"
#include "models/collective/transfer_dag.hpp"
#include "models/collective/tree_lowering.hpp"
#include "models/collective/tree_plan.hpp"
#include "sim/assert.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace railsim::models {
namespace {

// NCCL's model rate of a PCIe link, GB/s: 12 for Gen3 x16, doubling per generation, in
// proportion to the lanes (nccl:src/graph/topo.h, topo.cc).
double pcie_model_rate(PcieLink link) {
  return 12.0 * std::pow(2.0, link.generation - 3) * link.lanes / 16.0;
}

sim::Duration from_us(double us) { return sim::seconds(us * 1e-6); }

}  // namespace

std::string_view algorithm_label(const CollectiveResult& result) {
  return result.algorithm ? algorithm_name(*result.algorithm) : "p2p";
}

double busbw_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::kAllReduce:
      return 2.0 * (n - 1.0) / n;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllToAll:
    case CollectiveOp::kGather:
    case CollectiveOp::kScatter:
      return (n - 1.0) / n;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
    case CollectiveOp::kSendRecv:
      return 1.0;
  }
  return 1.0;
}

TuningTopology tuning_topology(const System& system, const Communicator& comm) {
  const NodeSpec& node = system.spec().node;
  // The communicator's own GPUs and the NIC its first one uses: every node is of one type.
  const Gpu& gpu = node.gpus.at(static_cast<std::size_t>(comm.system_gpu(0)));
  const std::string& gpu_model = gpu.model;
  const std::optional<GpuArch> arch = gpu_arch_of(gpu_model);
  if (!arch) {
    throw sim::InputError(
        fmt::format("GPU model '{}' of node {}: not a GPU generation NCCL's tuning tables know",
                    gpu_model, node.name));
  }
  TuningTopology topology;
  topology.arch = *arch;
  topology.cpu = cpu_vendor_of(node.sockets.front().model);
  topology.nodes = comm.nodes;
  topology.gpus_per_node = comm.gpus_per_node;
  topology.nvswitch = node.nvlink.kind == NvlinkKind::kSwitch;
  topology.intra_nvlink = topology.nvswitch;
  topology.intra_bw_GBps = topology.intra_nvlink
                               ? node.nvlink.links_per_gpu * nccl::nvlink_model_rate_GBps(*arch)
                               : pcie_model_rate(gpu.link);
  // NCCL's search sends a channel through a NIC near one of the communicator's GPUs (the GPU's
  // own, PIX), so it has as many NICs as those GPUs use: one GPU per node gets one NIC's worth,
  // as the shared 10 x 1 cluster01 log measured (48.7 GB/s on 400G NICs), not the node's eight;
  // a GPU with two ports, both.
  const CommNics comm_nics(system, comm);
  topology.nics_per_node = comm_nics.distinct_nics(0);
  topology.nics_per_gpu = static_cast<int>(comm_nics.nics(0, 0).size());
  const int first_nic = comm_nics.nic(0, 0);
  const Nic& nic = node.nics[static_cast<std::size_t>(
      system.compute_nics()[static_cast<std::size_t>(first_nic)])];
  topology.nic_bw_GBps =
      std::min(nic.port_rate.bytes_per_s, system.spec().fabric.port_rate.bytes_per_s) / 1e9;
  topology.collnet = system.spec().fabric.sharp.has_value();
  return topology;
}

namespace {

// Why NCCL would not run `algorithm` (with `protocol`, if forced) for this call: the rules of
// nccl_tuning's enablement (nccl:src/graph/tuning.cc, src/enqueue.cc), in words.
std::string why_not(const TuningTopology& topology,
                    CollectiveOp op,
                    Algorithm algorithm,
                    std::optional<Protocol> protocol) {
  if (topology.nodes * topology.gpus_per_node < 2) {
    return "one rank runs no algorithm";
  }
  const bool simple_only = algorithm != Algorithm::kRing && algorithm != Algorithm::kTree;
  if (simple_only && protocol && *protocol != Protocol::kSimple) {
    return fmt::format("{} runs the simple protocol only", algorithm_name(algorithm));
  }
  if (algorithm == Algorithm::kTree && op != CollectiveOp::kAllReduce) {
    return "tree runs all_reduce only";
  }
  if (algorithm == Algorithm::kNvls) {
    if (!topology.nvswitch ||
        (topology.arch != GpuArch::kHopper && topology.arch != GpuArch::kBlackwell)) {
      return "nvls needs GPUs of SM90 or later on an NVSwitch";
    }
    if (is_ring_chain(op)) {
      return "nvls runs all_reduce, all_gather and reduce_scatter only";
    }
    if (topology.nodes > 1) {
      return "nvls across nodes needs CollNet (IB SHARP), which is not modelled; nvlstree runs "
             "NVLS inside the nodes and a tree across them";
    }
  }
  if (algorithm == Algorithm::kNvlsTree) {
    if (!topology.nvswitch ||
        (topology.arch != GpuArch::kHopper && topology.arch != GpuArch::kBlackwell)) {
      return "nvlstree needs GPUs of SM90 or later on an NVSwitch";
    }
    if (op != CollectiveOp::kAllReduce) {
      return "nvlstree runs all_reduce only";
    }
    if (topology.nodes < 2) {
      return "nvlstree needs several nodes; on one node NCCL runs nvls";
    }
    const int heads = search_graph(topology, algorithm).channels;
    if (heads < 2) {
      return fmt::format(
          "nvlstree needs at least 2 NVLS heads per node; NCCL's NVLS graph finds {} with {} GPUs "
          "per node",
          heads, topology.gpus_per_node);
    }
  }
  if (algorithm == Algorithm::kPat) {
    if (!is_gather_scatter(op)) {
      return "pat runs all_gather and reduce_scatter only";
    }
    if (topology.gpus_per_node > 1) {
      return fmt::format(
          "NCCL enables pat only with one GPU per node (nNodes == nRanks); this call has {}",
          topology.gpus_per_node);
    }
  }
  if (is_collnet(algorithm)) {
    if (!topology.collnet) {
      return "CollNet reduces in the fabric's switches, and this fabric has no SHARP (its "
             "\"sharp\" key, or collective --sharp)";
    }
    if (op != CollectiveOp::kAllReduce) {
      return fmt::format("{} runs all_reduce only", algorithm_name(algorithm));
    }
    if (topology.nodes < 2) {
      return fmt::format("{} reduces across nodes; NCCL enables CollNet from 2 nodes",
                         algorithm_name(algorithm));
    }
    if (topology.gpus_per_node > 8) {
      return fmt::format("NCCL runs CollNet with at most {} GPUs per node; this call has {}",
                         nccl::kMaxCollNetGpus, topology.gpus_per_node);
    }
    if (algorithm == Algorithm::kCollNetDirect && !topology.nvswitch) {
      return "collnetdirect needs the node's GPUs on an NVSwitch; collnetchain runs without one";
    }
  }
  if (protocol == Protocol::kLl128 && !topology.intra_nvlink) {
    return "ll128 is off by default without NVLink";
  }
  return "NCCL's tuning model disables it here";
}

CollectiveTiming timing_for(const TuningTopology& topology,
                            Algorithm algorithm,
                            Protocol protocol,
                            int channels,
                            const CollectiveRequest& request) {
  const CollectiveCalibration& calibration = request.calibration;
  CollectiveTiming timing;
  timing.base_latency = from_us(base_latency_us(algorithm, protocol)) + calibration.base_latency;
  double intra_us =
      hop_latency_us(topology.intra_nvlink ? HopKind::kNvlink : HopKind::kPci, algorithm, protocol);
  if (algorithm == Algorithm::kRing && topology.nodes > 1) {
    // Multi-node rings: an intra-node hop costs at least the network post overhead.
    intra_us = std::max(intra_us, net_overhead_us(topology.cpu, protocol));
  }
  timing.intra_hop_latency = from_us(intra_us) + calibration.step(protocol);
  timing.inter_hop_latency =
      from_us(hop_latency_us(HopKind::kNet, algorithm, protocol)) + calibration.step(protocol);
  timing.wire_factor = wire_bytes_per_payload_byte(protocol);
  timing.streams = protocol != Protocol::kSimple;
  if (algorithm == Algorithm::kRing && topology.nodes > 1) {
    timing.step_post = from_us(net_overhead_us(topology.cpu, protocol));
  }
  double cap_gbytes_per_s = std::numeric_limits<double>::infinity();
  if (const auto per_channel = per_channel_cap_GBps(topology, algorithm, protocol)) {
    // NCCL's caps are per channel of its graph search, which the communicator runs as
    // comm_channels / graph channels channels (duplicated when the rings and trees are
    // connected): those share the cap (nccl:src/graph/tuning.cc counts graph channels).
    const int graph_channels = search_graph(topology, algorithm).channels;
    const int comm = comm_channels(topology, algorithm);
    cap_gbytes_per_s = std::min(cap_gbytes_per_s, *per_channel * graph_channels / comm);
  }
  if (const auto total = total_cap_GBps(topology, algorithm, protocol)) {
    cap_gbytes_per_s = std::min(cap_gbytes_per_s, *total / channels);
  }
  if (algorithm == Algorithm::kTree) {
    // A tree channel's threads run its reduce up and its broadcast down at once, each on part of
    // them (nccl:src/device/all_reduce.h, runTreeSplit): the channel's cap serves both, which is
    // NCCL's halving of a tree's bandwidth (nccl:src/graph/tuning.cc).
    cap_gbytes_per_s /= 2.0;
  }
  if (std::isfinite(cap_gbytes_per_s)) {
    timing.connection_cap = sim::gbytes_per_s(cap_gbytes_per_s);
  }
  timing.qps_per_connection = request.qps_per_connection;
  return timing;
}

// The hold of each edge of a CollNet tree at a switch. NCCL's model charges a CollNet call one
// network latency for its whole round trip through SHARP (`round_trip`), which the up and down
// edges of a head's path to the root of the deepest tree share evenly (a rail whose nodes share
// a leaf skips the edges above it); each switch on the path adds its reduction latency once,
// half on each of its two edges.
sim::Duration collnet_hop_latency(const TreePlan& plan,
                                  sim::Duration round_trip,
                                  sim::Duration switch_latency) {
  int depth = 0;
  for (const ReductionTree& tree : plan.reduction_trees) {
    depth = std::max(depth, tree.depth());
  }
  // A head's edge to its leaf, then one per switch below the root.
  const int edges = 1 + depth;
  return round_trip / (2 * edges) + switch_latency / 2;
}

Execution execution_for(const CollectiveRequest& request, std::int64_t transfers) {
  return request.execution.value_or(transfers <= static_cast<std::int64_t>(kChunkTransferLimit)
                                        ? Execution::kChunk
                                        : Execution::kPipelined);
}

// What a call reports when it ends, kept by value: the request may be gone by then.
struct CallReport {
  CollectiveOp op = CollectiveOp::kAllReduce;
  sim::Bytes size;
  int ranks = 1;
  sim::SimTime start;
  CollectiveResult chosen;  // NCCL's choices, no time yet
  CollectiveTrace* trace = nullptr;
  std::function<void(const CollectiveResult&)> done;

  CollectiveResult at_end(sim::SimTime end) const {
    CollectiveResult result = chosen;
    result.time = end - start;
    if (trace) {
      trace->call(fmt::format("{} {} {} {}", op_name(op), sim::size_text(size),
                              algorithm_label(result), protocol_name(result.protocol)),
                  start, end,
                  {{"channels", std::int64_t{result.channels}},
                   {"execution", std::string(execution_name(result.execution))}});
    }
    const double seconds = sim::to_seconds(result.time);
    result.algbw_GBps = seconds > 0.0 ? static_cast<double>(size.count) / seconds / 1e9 : 0.0;
    result.busbw_GBps = result.algbw_GBps * busbw_factor(op, ranks);
    return result;
  }
};

// A call on the heap with its executor: DagExecutor for chunk-accurate runs,
// GroupPipelineExecutor for pipelined ones. The executor's callback captures only the call.
template <typename Executor>
class ExecutorCall final : public CollectiveCall {
 public:
  template <typename Plan>
  ExecutorCall(sim::FlowNetwork& network,
               sim::Simulator& simulator,
               Plan plan,
               CollectiveTrace* trace,
               CallReport report)
      : CollectiveCall(report.chosen),
        executor_(network, simulator, std::move(plan), trace),
        report_(std::move(report)) {}

  void start(sim::Duration delay) {
    executor_.start(delay, [this](sim::SimTime end) { end_at(end); });
  }

 private:
  void end_at(sim::SimTime end) {
    const CollectiveResult result = report_.at_end(end);
    complete(result);
    if (report_.done) {
      report_.done(result);
    }
  }

  Executor executor_;
  CallReport report_;
};

template <typename Executor, typename Plan>
std::unique_ptr<CollectiveCall> launch(sim::FlowNetwork& network,
                                       sim::Simulator& simulator,
                                       Plan plan,
                                       sim::Duration delay,
                                       CollectiveTrace* trace,
                                       CallReport report) {
  auto call = std::make_unique<ExecutorCall<Executor>>(network, simulator, std::move(plan), trace,
                                                       std::move(report));
  call->start(delay);
  return call;
}

// Builds the plan in the form the call's execution asks for, only then, and starts it `delay`
// from now. Everything the plan is built from may die when this returns: the executors keep
// their DAG or pipeline by value.
template <typename MakeDag, typename MakePipeline>
std::unique_ptr<CollectiveCall> execute(sim::FlowNetwork& network,
                                        sim::Simulator& simulator,
                                        sim::Duration delay,
                                        CollectiveTrace* trace,
                                        CallReport report,
                                        MakeDag&& make_dag,
                                        MakePipeline&& make_pipeline) {
  if (report.chosen.execution == Execution::kChunk) {
    return launch<DagExecutor>(network, simulator, make_dag(), delay, trace, std::move(report));
  }
  return launch<GroupPipelineExecutor>(network, simulator, make_pipeline(), delay, trace,
                                       std::move(report));
}

// The report of a call of `request` starting now, NCCL's choices still to fill in.
CallReport report_for(const CollectiveRequest& request,
                      const sim::Simulator& simulator,
                      CollectiveTrace* trace,
                      std::function<void(const CollectiveResult&)> done) {
  CallReport report;
  report.op = request.op;
  report.size = request.size;
  report.ranks = request.comm.ranks();
  report.start = simulator.now();
  report.trace = trace;
  report.done = std::move(done);
  return report;
}

// A point-to-point op: every message at once on NCCL's p2p channels (p2p_plan.hpp). NCCL's
// tuner has no p2p figures, so a message pays what a ring step over the same hop does with the
// same protocol, and the call a ring's base latency (nccl:src/graph/tuning.cc), each with the
// calibrated software costs above them. NCCL_MAX_NCHANNELS (`channels`) bounds the channels per
// network peer.
std::unique_ptr<CollectiveCall> start_p2p(const System& system,
                                          sim::FlowNetwork& network,
                                          sim::Simulator& simulator,
                                          const CollectiveRequest& request,
                                          const TuningTopology& topology,
                                          std::function<void(const CollectiveResult&)> done,
                                          CollectiveTrace* trace) {
  const std::string_view op = op_name(request.op);
  if (!request.algorithm.empty()) {
    throw sim::InputError(fmt::format(
        "{} runs on NCCL's point-to-point channels, which no algorithm (NCCL_ALGO) chooses", op));
  }
  if (request.protocol) {
    throw sim::InputError(fmt::format(
        "{} chooses its own protocol, as NCCL's point-to-point calls do: LL below {} B per peer "
        "(NCCL_P2P_LL_THRESHOLD), Simple above",
        op, kP2pLlThreshold.count));
  }
  if (request.execution == Execution::kChunk) {
    throw sim::InputError(fmt::format(
        "{} runs pipelined only: each message streams through its connection's slots as one "
        "transfer",
        op));
  }
  // A peer's channels spread over the GPU's NICs, at least one on each.
  const int net_channels = std::max(
      1, p2p_channels_per_peer(topology,
                               request.channels.value_or(comm_channels(topology, Algorithm::kRing)),
                               request.channels_per_net_peer) /
             topology.nics_per_gpu);
  const P2pPlan plan = make_p2p_plan(system, request.op, request.size, request.comm, request.pxn,
                                     net_channels, request.peer_bytes.get());
  const CollectiveCalibration& calibration = request.calibration;
  const Protocol protocol = plan.protocol;
  CollectiveTiming timing;
  timing.base_latency =
      from_us(base_latency_us(Algorithm::kRing, protocol)) + calibration.base_latency;
  timing.intra_hop_latency =
      from_us(hop_latency_us(topology.intra_nvlink ? HopKind::kNvlink : HopKind::kPci,
                             Algorithm::kRing, protocol)) +
      calibration.step(protocol);
  timing.inter_hop_latency = from_us(hop_latency_us(HopKind::kNet, Algorithm::kRing, protocol)) +
                             calibration.step(protocol);
  timing.wire_factor = wire_bytes_per_payload_byte(protocol);
  timing.connection_cap = sim::Bandwidth{
      calibration.p2p_channel_GBps ? *calibration.p2p_channel_GBps * 1e9 : kP2pChannelNetBytesPerS};
  timing.net_efficiency = calibration.p2p_net_efficiency;
  timing.qps_per_connection = request.qps_per_connection;

  CallReport report = report_for(request, simulator, trace, std::move(done));
  report.chosen.protocol = protocol;
  report.chosen.channels = net_channels;
  report.chosen.execution = Execution::kPipelined;
  return launch<DagExecutor>(network, simulator,
                             p2p_dag(system, request.comm, plan, timing, trace != nullptr),
                             timing.base_latency, trace, std::move(report));
}

}  // namespace

CollectiveCall::~CollectiveCall() = default;

std::unique_ptr<CollectiveCall> start_collective(const System& system,
                                                 sim::FlowNetwork& network,
                                                 sim::Simulator& simulator,
                                                 const CollectiveRequest& request,
                                                 std::function<void(const CollectiveResult&)> done,
                                                 CollectiveTrace* trace) {
  if (request.size.count < 0) {
    throw sim::InputError(fmt::format("size {} B, expected >= 0", request.size.count));
  }
  if (request.qps_per_connection < 1 || request.qps_per_connection > 128) {
    throw sim::InputError(
        fmt::format("qps_per_connection {}, expected 1 to 128", request.qps_per_connection));
  }
  if (request.channels_per_net_peer &&
      (*request.channels_per_net_peer < 1 || *request.channels_per_net_peer > nccl::kMaxChannels)) {
    throw sim::InputError(
        fmt::format("{} channels per network peer, expected 1 to {} (NCCL's "
                    "MAXCHANNELS)",
                    *request.channels_per_net_peer, nccl::kMaxChannels));
  }
  if (request.peer_bytes && request.op != CollectiveOp::kAllToAll) {
    throw sim::InputError(fmt::format(
        "{} sends one size to each peer: only alltoall takes bytes per peer", op_name(request.op)));
  }
  const Communicator& comm = request.comm;
  check_fits(system, comm, request.channels);
  const TuningTopology topology = tuning_topology(system, comm);
  if (is_point_to_point(request.op)) {
    return start_p2p(system, network, simulator, request, topology, std::move(done), trace);
  }
  const double bytes = static_cast<double>(request.size.count);
  const std::vector<Protocol> protocols =
      request.protocol ? std::vector<Protocol>{*request.protocol}
                       : std::vector<Protocol>(kProtocols.begin(), kProtocols.end());
  const std::vector<Algorithm> algorithms = request.algorithm.list();
  const std::optional<AlgoChoice> choice =
      select_algorithm(topology, request.op, bytes, algorithms, protocols);
  if (!choice) {
    // Why the first allowed one is off: the ring, where every one is allowed.
    const Algorithm shown = algorithms.front();
    throw sim::InputError(fmt::format(
        "NCCL would not run {} with {}{} on {} ({} nodes): {}", op_name(request.op),
        request.algorithm.empty() ? std::string(algorithm_name(shown))
                                  : algorithm_set_text(request.algorithm),
        request.protocol ? fmt::format(" and {}", protocol_name(*request.protocol)) : std::string{},
        system.spec().node.name, comm.nodes,
        why_not(topology, request.op, shown, request.protocol)));
  }
  const Algorithm algorithm = choice->algorithm;
  const Protocol protocol = choice->protocol;
  // NVLS Tree's and CollNet Direct's heads: one per channel of their graph, each on a NIC of its
  // own.
  const int heads = search_graph(topology, algorithm).channels;
  const int channels = request.channels.value_or(
      algorithm == Algorithm::kCollNetDirect
          ? collnet_direct_channels(comm_channels(topology, algorithm), heads, bytes)
          : trimmed_channels(comm_channels(topology, algorithm), algorithm, protocol, comm.ranks(),
                             bytes));

  CallReport report = report_for(request, simulator, trace, std::move(done));
  CollectiveResult& chosen = report.chosen;
  chosen.algorithm = algorithm;
  chosen.protocol = protocol;
  chosen.channels = channels;
  const bool traced = trace != nullptr;
  switch (algorithm) {
    case Algorithm::kRing: {
      RingLayout layout = ring_layout(system, comm, {channels, request.cross_nic, request.pxn});
      if (request.op == CollectiveOp::kReduce) {
        start_after_root(layout);
      }
      RingPlan plan = make_ring_plan(request.op, protocol, request.size, layout.rings);
      chosen.execution = execution_for(request, plan.transfer_count());
      const CollectiveTiming timing = timing_for(topology, algorithm, protocol, channels, request);
      return execute(
          network, simulator, timing.base_latency, trace, std::move(report),
          [&] { return ring_dag(system, comm, plan, layout, timing, traced); },
          [&] {
            return ring_pipeline(system, network, comm, std::move(plan), layout, timing,
                                 request.recurrence_memo, traced);
          });
    }
    case Algorithm::kTree: {
      TreePlan plan = make_tree_plan(protocol, request.size, comm, channels);
      chosen.execution = execution_for(request, plan.transfer_count());
      const CollectiveTiming timing = timing_for(topology, algorithm, protocol, channels, request);
      return execute(
          network, simulator, timing.base_latency, trace, std::move(report),
          [&] { return tree_dag(system, plan, timing, traced); },
          [&] { return tree_pipeline(system, network, std::move(plan), timing, traced); });
    }
    case Algorithm::kNvls: {
      const NvlsPlan plan = make_nvls_plan(request.op, request.size, comm.ranks(), channels);
      // Each NVLS transfer is a switch operation with a flow on every GPU's port: chunk-accurate
      // work grows with transfers times ranks (72 on an NVL72 domain).
      chosen.execution = execution_for(request, plan.transfer_count() * comm.ranks());
      const NvlsTiming timing{
          from_us(hop_latency_us(HopKind::kNvlink, algorithm, protocol)) +
              request.calibration.step(protocol),
          1.0 / request.calibration.nvls_efficiency.value_or(nvls_efficiency(topology.arch))};
      return execute(
          network, simulator, request.calibration.base_latency, trace, std::move(report),
          [&] { return nvls_dag(system, comm, plan, timing, traced); },
          [&] { return nvls_pipeline(system, comm, network, plan, timing, traced); });
    }
    case Algorithm::kNvlsTree: {
      NvlsTreePlan plan =
          make_nvls_tree_plan(request.size, comm, nvls_tree_heads(system, comm, heads), channels);
      chosen.execution = execution_for(request, plan.transfer_count());
      NvlsTreeTiming timing;
      timing.network = timing_for(topology, algorithm, protocol, channels, request);
      // NCCL's NVLS graph has a channel per head, and its cap, perChMaxNVLSTreeBw, is that
      // channel's bus bandwidth (nccl:src/graph/tuning.cc). timing_for shares a graph channel's
      // cap among the communicator's channels; a head's tree edges on one of them get a heads-th
      // of that, in algorithm bandwidth: the cap over heads x 2(n-1)/n.
      timing.network.connection_cap =
          sim::Bandwidth{timing.network.connection_cap.bytes_per_s /
                         (static_cast<double>(plan.heads()) *
                          busbw_factor(CollectiveOp::kAllReduce, comm.ranks()))};
      // NCCL's model charges the load-reduce and the store one NVLink hop together; each carries
      // half of it.
      timing.nvls_hold = (from_us(hop_latency_us(HopKind::kNvlink, algorithm, protocol)) +
                          request.calibration.step(protocol)) /
                         2;
      timing.nvls_wire_factor =
          1.0 / request.calibration.nvls_efficiency.value_or(nvls_efficiency(topology.arch));
      return execute(
          network, simulator, timing.network.base_latency, trace, std::move(report),
          [&] { return nvls_tree_dag(system, plan, timing, traced); },
          [&] { return nvls_tree_pipeline(system, network, std::move(plan), timing, traced); });
    }
    case Algorithm::kPat: {
      PatPlan plan = make_pat_plan(request.op, request.size, comm, channels);
      chosen.execution = execution_for(request, plan.transfer_count());
      PatTiming timing;
      timing.network = timing_for(topology, algorithm, protocol, channels, request);
      // NCCL's PAT model charges a dimension the hop latency over kPatHopDivisor and each
      // rank's portion kPatRankUs (nccl:src/graph/tuning.cc).
      const auto step_latency = [&](HopKind hop) {
        return from_us(hop_latency_us(hop, algorithm, protocol) / kPatHopDivisor) +
               request.calibration.step(protocol);
      };
      timing.network.intra_hop_latency =
          step_latency(topology.intra_nvlink ? HopKind::kNvlink : HopKind::kPci);
      timing.network.inter_hop_latency = step_latency(HopKind::kNet);
      timing.per_portion = from_us(kPatRankUs);
      return execute(
          network, simulator, timing.network.base_latency, trace, std::move(report),
          [&] { return pat_dag(system, plan, timing, traced); },
          [&] { return pat_pipeline(system, network, std::move(plan), timing, traced); });
    }
    case Algorithm::kCollNetDirect:
    case Algorithm::kCollNetChain: {
      TreePlan plan = make_collnet_plan(system, algorithm, request.size, comm, channels, heads);
      chosen.execution = execution_for(request, plan.transfer_count());
      CollectiveTiming timing = timing_for(topology, algorithm, protocol, channels, request);
      // With one GPU per node NCCL's model takes Tree's network latency for the round trip
      // ("latencies are fully exposed", nccl:src/graph/tuning.cc).
      const sim::Duration round_trip =
          comm.gpus_per_node == 1
              ? from_us(hop_latency_us(HopKind::kNet, Algorithm::kTree, protocol)) +
                    request.calibration.step(protocol)
              : timing.inter_hop_latency;
      timing.inter_hop_latency =
          collnet_hop_latency(plan, round_trip, system.spec().fabric.sharp->latency);
      if (algorithm == Algorithm::kCollNetDirect) {
        // A head serves its peers one after another (NCCL's arity serialization): each star edge
        // waits for the others'.
        timing.intra_hop_latency += from_us((comm.gpus_per_node - 1) * kCollNetDirectPeerUs);
      }
      return execute(
          network, simulator, timing.base_latency, trace, std::move(report),
          [&] { return tree_dag(system, plan, timing, traced); },
          [&] { return tree_pipeline(system, network, std::move(plan), timing, traced); });
    }
  }
  RAILSIM_UNREACHABLE("every algorithm is executed");
}

CollectiveResult run_collective(const System& system,
                                sim::FlowNetwork& network,
                                sim::Simulator& simulator,
                                const CollectiveRequest& request,
                                CollectiveTrace* trace) {
  const std::unique_ptr<CollectiveCall> call =
      start_collective(system, network, simulator, request, {}, trace);
  while (!call->finished()) {
    const bool stepped = simulator.step();
    RAILSIM_ASSERT(stepped, "a collective in progress always has an event pending");
    if (!stepped) {
      break;
    }
  }
  return call->result();
}

}  // namespace railsim::models
