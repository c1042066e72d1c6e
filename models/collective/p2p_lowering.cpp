// File: models/collective/p2p_lowering.cpp
// Every message of a point-to-point group as one task of flows over its routes.
#include "models/collective/p2p_lowering.hpp"

#include "models/collective/connection_routes.hpp"

#include <algorithm>
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

  // A message's connections, and the bytes and how many of them, per distinct set of paths.
  struct Route {
    Paths lanes;
    sim::Bytes bytes;
    double connections = 0.0;
  };

  std::vector<Route> routes;
  for (std::size_t m = 0; m < plan.messages.size(); ++m) {
    const P2pMessage& message = plan.messages[m];
    const sim::Bytes wire = wire_bytes(message.bytes, timing.wire_factor);
    // Every channel and queue pair of a message is a connection of its own to ECMP's hash;
    // connections that draw the same paths (under one leaf, or every adaptive lane) move as one
    // flow per path, weighted by their count, at the rates they would have apart.
    const std::uint64_t parts = message.hop.inter_node ? connections : 1;
    routes.clear();
    for (std::uint64_t part = 0; part < parts; ++part) {
      Paths lanes = hop_paths(system, comm, message.hop, m * connections + part);
      const sim::Bytes share = even_share(wire, parts, part);
      const auto same = std::find_if(routes.begin(), routes.end(),
                                     [&](const Route& route) { return route.lanes == lanes; });
      if (same != routes.end()) {
        same->bytes = sim::bytes(same->bytes.count + share.count);
        same->connections += 1.0;
      } else {
        routes.push_back({std::move(lanes), share, 1.0});
      }
    }
    DagTask task;
    task.hold = timing.hop_latency(message.hop.inter_node);
    for (const Route& route : routes) {
      for (std::size_t lane = 0; lane < route.lanes.size(); ++lane) {
        task.flows.push_back({dag.paths.add(route.lanes[lane]),
                              even_share(route.bytes, route.lanes.size(), lane),
                              route.connections});
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
