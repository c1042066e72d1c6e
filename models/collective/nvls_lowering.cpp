// File: models/collective/nvls_lowering.cpp
// NVSwitch operations as grouped flows on the GPUs' switch ports.
#include "models/collective/nvls_lowering.hpp"

#include "sim/assert.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace railsim::models {
namespace {

using sim::at;

// paths[g]: rank g's GPU up to the switch; paths[n + g]: the switch down to it. The ranks are
// the GPUs of the communicator's one node.
std::vector<std::vector<sim::LinkId>> switch_ports(const System& system,
                                                   const Communicator& comm,
                                                   int ranks) {
  if (system.spec().node.nvlink.kind != NvlinkKind::kSwitch) {
    throw sim::InputError(
        fmt::format("nvls needs GPUs on an NVSwitch; a {} node has none", system.spec().node.name));
  }
  RAILSIM_ASSERT(comm.nodes == 1 && comm.gpus_per_node == ranks,
                 "nvls runs the GPUs of one node, a rank each");
  const int node = comm.system_node(0);
  std::vector<std::vector<sim::LinkId>> ports(2 * at(ranks));
  for (int g = 0; g < ranks; ++g) {
    // Through the switch a route is {sender's port up, receiver's port down}.
    const int gpu = comm.system_gpu(g);
    const int other = comm.system_gpu((g + 1) % ranks);
    const std::vector<sim::LinkId> out = system.route_in_node(node, gpu, other);
    const std::vector<sim::LinkId> in = system.route_in_node(node, other, gpu);
    RAILSIM_ASSERT(out.size() == 2 && in.size() == 2, "an NVSwitch route is two port links");
    ports[at(g)] = {out[0]};
    ports[at(ranks + g)] = {in[1]};
  }
  return ports;
}

std::uint32_t port(const NvlsPlan& plan, const PortLoad& load) {
  return static_cast<std::uint32_t>(load.to_switch ? load.gpu : plan.ranks + load.gpu);
}

std::string operation_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kReduceScatter:
      return "reduce";
    case CollectiveOp::kAllGather:
      return "store";
    default:
      return "reduce+store";
  }
}

}  // namespace

TransferDag nvls_dag(const System& system,
                     const Communicator& comm,
                     const NvlsPlan& plan,
                     const NvlsTiming& timing,
                     bool traced) {
  TransferDag dag;
  dag.paths = switch_ports(system, comm, plan.ranks);
  const std::vector<NvlsOperation> operations = nvls_operations(plan);
  dag.tasks.reserve(operations.size());
  for (const NvlsOperation& op : operations) {
    DagTask task;
    for (const PortLoad& load : nvls_operation(plan.op, plan.ranks, op.head, op.bytes)) {
      task.flows.push_back({port(plan, load), wire_bytes(load.bytes, timing.wire_factor)});
    }
    task.grouped = true;
    task.hold = timing.hold;
    task.after = op.after;
    dag.tasks.push_back(std::move(task));
  }
  if (traced) {
    dag.names = {operation_name(plan.op)};
    dag.senders.reserve(operations.size());
    for (const NvlsOperation& op : operations) {
      dag.senders.push_back({op.head, op.channel, kSwitchPeer, op.bytes.count});
    }
  }
  return dag;
}

GroupPipeline nvls_pipeline(const System& system,
                            const Communicator& comm,
                            const sim::FlowNetwork& network,
                            const NvlsPlan& plan,
                            const NvlsTiming& timing,
                            bool traced) {
  GroupPipeline pipeline;
  pipeline.paths = switch_ports(system, comm, plan.ranks);
  pipeline.channels.resize(at(plan.channels));
  for (int c = 0; c < plan.channels; ++c) {
    std::vector<sim::Bytes> load(pipeline.paths.size());
    std::vector<sim::Bytes> headed(at(plan.ranks));  // what each head handles
    const std::vector<sim::Bytes> pieces = plan.loop_pieces(c);
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      const int head = static_cast<int>(i % at(plan.ranks));
      headed[at(head)] += pieces[i];
      for (const PortLoad& l : nvls_operation(plan.op, plan.ranks, head, pieces[i])) {
        load[port(plan, l)] += l.bytes;
      }
    }
    PipelineGroup group;
    group.members.reserve(load.size());
    for (std::size_t p = 0; p < load.size(); ++p) {
      group.members.push_back(
          {static_cast<std::uint32_t>(p), wire_bytes(load[p], timing.wire_factor)});
    }
    pipeline.channels[at(c)].push_back(std::move(group));
    if (traced) {
      std::vector<TraceSender>& senders = pipeline.senders.emplace_back();
      for (int h = 0; h < plan.ranks; ++h) {
        senders.push_back({h, c, kSwitchPeer, headed[at(h)].count});
      }
    }
  }
  sim::Duration port_latency{};  // the longest
  for (const auto& p : pipeline.paths) {
    port_latency = std::max(port_latency, network.link(p.front()).latency);
  }
  const sim::Duration tail = timing.hold + port_latency;
  pipeline.channel_times = [tail](std::vector<sim::Duration> drains) {
    for (sim::Duration& d : drains) {
      d += tail;
    }
    return drains;
  };
  return pipeline;
}

}  // namespace railsim::models
