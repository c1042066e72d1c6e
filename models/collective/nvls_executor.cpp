// File: models/collective/nvls_executor.cpp
// NVSwitch operations as grouped flows on the GPUs' switch ports.
#include "models/collective/nvls_executor.hpp"

#include "models/collective/group_pipeline.hpp"
#include "models/collective/transfer_dag.hpp"
#include "sim/assert.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace railsim::models {
namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

}  // namespace

struct NvlsExecutor::Impl {
  sim::FlowNetwork& net;
  sim::Simulator& sim;
  NvlsPlan plan;
  NvlsTiming timing;
  // paths[g]: GPU g up to the switch; paths[n + g]: the switch down to GPU g.
  std::vector<std::vector<sim::LinkId>> ports;
  sim::Duration port_latency{};  // the longest of them
  std::unique_ptr<DagExecutor> chunks;
  std::unique_ptr<GroupPipelineExecutor> pipelined;

  Impl(const System& system, sim::FlowNetwork& n, sim::Simulator& s, NvlsPlan p, NvlsTiming t)
      : net(n), sim(s), plan(p), timing(t) {
    if (system.spec().node.nvlink.kind != NvlinkKind::kSwitch) {
      throw sim::InputError(fmt::format("nvls needs GPUs on an NVSwitch; a {} node has none",
                                        system.spec().node.name));
    }
    const int ranks = plan.ranks;
    ports.resize(2 * at(ranks));
    for (int g = 0; g < ranks; ++g) {
      // Through the switch a route is {sender's port up, receiver's port down}.
      const int other = (g + 1) % ranks;
      const std::vector<sim::LinkId> out = system.route_in_node(0, g, other);
      const std::vector<sim::LinkId> in = system.route_in_node(0, other, g);
      RAILSIM_ASSERT(out.size() == 2 && in.size() == 2, "an NVSwitch route is two port links");
      ports[at(g)] = {out[0]};
      ports[at(ranks + g)] = {in[1]};
    }
    for (const auto& port : ports) {
      port_latency = std::max(port_latency, net.link(port.front()).latency);
    }
  }

  std::uint32_t port(const PortLoad& load) const {
    return static_cast<std::uint32_t>(load.to_switch ? load.gpu : plan.ranks + load.gpu);
  }

  TransferDag chunk_dag() const {
    TransferDag dag;
    dag.paths = ports;
    const std::vector<NvlsOperation> operations = nvls_operations(plan);
    dag.tasks.reserve(operations.size());
    for (const NvlsOperation& op : operations) {
      DagTask task;
      for (const PortLoad& load : nvls_operation(plan.op, plan.ranks, op.head, op.bytes)) {
        task.flows.push_back({port(load), wire_bytes(load.bytes, timing.wire_factor)});
      }
      task.grouped = true;
      task.hold = timing.hold;
      task.after = op.after;
      dag.tasks.push_back(std::move(task));
    }
    return dag;
  }

  GroupPipeline groups() const {
    GroupPipeline pipeline;
    pipeline.paths = ports;
    pipeline.channels.resize(at(plan.channels));
    for (int c = 0; c < plan.channels; ++c) {
      std::vector<sim::Bytes> load(ports.size());
      const std::vector<sim::Bytes> pieces = plan.loop_pieces(c);
      for (std::size_t i = 0; i < pieces.size(); ++i) {
        const int head = static_cast<int>(i % at(plan.ranks));
        for (const PortLoad& l : nvls_operation(plan.op, plan.ranks, head, pieces[i])) {
          load[port(l)] += l.bytes;
        }
      }
      PipelineGroup group;
      group.members.reserve(load.size());
      for (std::size_t p = 0; p < load.size(); ++p) {
        group.members.push_back(
            {static_cast<std::uint32_t>(p), wire_bytes(load[p], timing.wire_factor)});
      }
      pipeline.channels[at(c)].push_back(std::move(group));
    }
    return pipeline;
  }
};

NvlsExecutor::NvlsExecutor(const System& system,
                           sim::FlowNetwork& network,
                           sim::Simulator& simulator,
                           NvlsPlan plan,
                           NvlsTiming timing)
    : impl_(std::make_unique<Impl>(system, network, simulator, plan, timing)) {}

NvlsExecutor::~NvlsExecutor() = default;

void NvlsExecutor::start(Execution execution, std::function<void(sim::SimTime)> done) {
  Impl& m = *impl_;
  RAILSIM_ASSERT(!m.chunks && !m.pipelined, "an NVLS run starts once");
  if (execution == Execution::kChunk) {
    m.chunks = std::make_unique<DagExecutor>(m.net, m.sim, m.chunk_dag());
    m.chunks->start(sim::Duration::zero(), std::move(done));
    return;
  }
  const sim::Duration tail = m.timing.hold + m.port_latency;
  m.pipelined = std::make_unique<GroupPipelineExecutor>(
      m.net, m.sim, m.groups(), [tail](int, sim::Duration drain) { return drain + tail; });
  m.pipelined->start(sim::Duration::zero(), std::move(done));
}

bool NvlsExecutor::finished() const {
  return (impl_->chunks && impl_->chunks->finished()) ||
         (impl_->pipelined && impl_->pipelined->finished());
}

}  // namespace railsim::models
