// File: models/collective/p2p_lowering.cpp
// Every message of a point-to-point group as one task of flows over its routes.
#include "models/collective/p2p_lowering.hpp"

#include "models/collective/connection_routes.hpp"

#include <cstdint>
#include <string>
#include <utility>

namespace railsim::models {

TransferDag p2p_dag(const System& system,
                    const Communicator& comm,
                    const P2pPlan& plan,
                    const CollectiveTiming& timing,
                    bool traced) {
  TransferDag dag;
  dag.tasks.reserve(plan.messages.size());
  if (traced) {
    dag.senders.reserve(plan.messages.size());
    dag.names = {std::string(op_name(plan.op))};
  }
  const auto connections =
      static_cast<std::uint64_t>(plan.net_channels) * static_cast<std::uint64_t>(timing.qps());
  for (std::size_t m = 0; m < plan.messages.size(); ++m) {
    const P2pMessage& message = plan.messages[m];
    const sim::Bytes wire = wire_bytes(message.bytes, timing.wire_factor);
    DagTask task;
    task.hold = timing.hop_latency(message.hop.inter_node);
    // Every channel and queue pair of a message is a connection of its own to ECMP's hash.
    const std::uint64_t parts = message.hop.inter_node ? connections : 1;
    for (std::uint64_t part = 0; part < parts; ++part) {
      const sim::Bytes share = even_share(wire, parts, part);
      const Paths lanes = hop_paths(system, comm, message.hop, m * connections + part);
      for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
        task.flows.push_back({dag.paths.add(lanes[lane]), even_share(share, lanes.size(), lane)});
      }
    }
    dag.tasks.push_back(std::move(task));
    if (traced) {
      dag.senders.push_back({message.hop.src, 0, message.hop.dst, message.bytes.count, 0U});
    }
  }
  return dag;
}

}  // namespace railsim::models
