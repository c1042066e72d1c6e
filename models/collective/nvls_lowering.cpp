// File: models/collective/nvls_lowering.cpp
// NVSwitch operations as grouped flows on the GPUs' switch ports.
#include "models/collective/nvls_lowering.hpp"

#include "sim/assert.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string>

namespace railsim::models {
namespace {

using sim::at;

// The ranks are the GPUs of the communicator's one node.
PathTable switch_ports(const System& system, const Communicator& comm, [[maybe_unused]] int ranks) {
  RAILSIM_ASSERT(comm.nodes == 1 && comm.gpus_per_node == ranks,
                 "nvls runs the GPUs of one node, a rank each");
  return nvswitch_ports(system, comm, "nvls");
}

std::uint32_t port(const NvlsPlan& plan, const PortLoad& load) {
  return nvswitch_port(plan.ranks, 0, load.gpu, load.to_switch);
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

std::uint32_t nvswitch_port(int gpus, int node, int gpu, bool to_switch) {
  return static_cast<std::uint32_t>((node * gpus + gpu) * 2 + (to_switch ? 0 : 1));
}

PathTable nvswitch_ports(const System& system,
                         const Communicator& comm,
                         std::string_view algorithm) {
  if (system.spec().node.nvlink.kind != NvlinkKind::kSwitch) {
    throw sim::InputError(fmt::format("{} needs GPUs on an NVSwitch; a {} node has none", algorithm,
                                      system.spec().node.name));
  }
  const int gpus = comm.gpus_per_node;
  RAILSIM_ASSERT(gpus >= 2, "an NVSwitch operation spans at least two GPUs");
  PathTable ports;
  for (int m = 0; m < comm.nodes; ++m) {
    const int node = comm.system_node(m);
    for (int g = 0; g < gpus; ++g) {
      // Through the switch a route is {sender's port up, receiver's port down}.
      const int gpu = comm.system_gpu(g);
      const int other = comm.system_gpu((g + 1) % gpus);
      const std::vector<sim::LinkId> out = system.route_in_node(node, gpu, other);
      const std::vector<sim::LinkId> in = system.route_in_node(node, other, gpu);
      RAILSIM_ASSERT(out.size() == 2 && in.size() == 2, "an NVSwitch route is two port links");
      RAILSIM_ASSERT(ports.size() == nvswitch_port(gpus, m, g, true),
                     "ports in nvswitch_port order");
      ports.add(std::span(out).first(1));
      ports.add(std::span(in).last(1));
    }
  }
  return ports;
}

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
      task.flows.push_back(
          {.path = port(plan, load), .bytes = wire_bytes(load.bytes, timing.wire_factor)});
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
      group.members.push_back({.path = static_cast<std::uint32_t>(p),
                               .bytes = wire_bytes(load[p], timing.wire_factor)});
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
  for (std::size_t p = 0; p < pipeline.paths.size(); ++p) {
    port_latency = std::max(port_latency, path_latency(network, pipeline.paths[p]));
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
