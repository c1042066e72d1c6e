// File: models/collective/p2p_lowering.cpp
// Every network connection of a point-to-point group as one task of flows over its routes.
#include "models/collective/p2p_lowering.hpp"

#include "models/collective/connection_routes.hpp"
#include "sim/index.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace railsim::models {
namespace {

using sim::at;

// The messages that share one network connection, or one message inside a node.
struct Connection {
  RingHop hop;                // from the rank that posts the sends (the relay under PXN)
  std::vector<int> messages;  // indices into the plan, the first the lowest
};

// Groups the plan's messages by the rank that posts them to the network, its NIC and their
// receiver, in the order of their first message.
std::vector<Connection> connections_of(const System& system,
                                       const Communicator& comm,
                                       const P2pPlan& plan) {
  const auto nics = static_cast<std::int64_t>(system.compute_nics().size());
  std::vector<Connection> out;
  std::unordered_map<std::int64_t, int> index;
  index.reserve(plan.messages.size());
  for (std::size_t m = 0; m < plan.messages.size(); ++m) {
    const RingHop& hop = plan.messages[m].hop;
    RingHop posted = hop;
    if (hop.relay_gpu >= 0) {
      posted.src = comm.rank_of(comm.node_of(hop.src), hop.relay_gpu);
      posted.relay_gpu = -1;
    }
    int slot = static_cast<int>(out.size());
    if (hop.inter_node) {
      const std::int64_t key =
          (std::int64_t{posted.src} * comm.ranks() + posted.dst) * nics + posted.send_nic;
      slot = index.try_emplace(key, slot).first->second;
    }
    if (slot == static_cast<int>(out.size())) {
      out.push_back({posted, {}});
    }
    out[at(slot)].messages.push_back(static_cast<int>(m));
  }
  return out;
}

}  // namespace

TransferDag p2p_dag(const System& system,
                    const Communicator& comm,
                    const P2pPlan& plan,
                    const CollectiveTiming& timing,
                    bool traced) {
  const std::vector<Connection> connections = connections_of(system, comm, plan);
  TransferDag dag;
  dag.tasks.reserve(connections.size());
  if (traced) {
    dag.senders.reserve(connections.size());
    dag.names = {std::string(op_name(plan.op))};
  }
  const auto per_connection =
      static_cast<std::uint64_t>(plan.net_channels) * static_cast<std::uint64_t>(timing.qps());

  // A connection's channels and queue pairs, and the bytes and how many of them, per distinct
  // set of paths.
  struct Route {
    Paths lanes;
    sim::Bytes bytes;
    float parts = 0.0F;
  };

  std::vector<Route> routes;
  // The NVLink route from a sender to its relay, added to the paths once per pair of ranks: a
  // GPU relays for every remote node through the same few peers.
  std::unordered_map<std::int64_t, std::uint32_t> copy_paths;
  const auto copy_path = [&](int src, int relay) {
    const auto [it, added] =
        copy_paths.try_emplace(std::int64_t{src} * comm.ranks() + relay, std::uint32_t{0});
    if (added) {
      RingHop copy;
      copy.src = src;
      copy.dst = relay;
      it->second = dag.paths.add(hop_paths(system, comm, copy, 0).front());
    }
    return it->second;
  };
  for (const Connection& connection : connections) {
    DagTask task;
    task.hold = timing.hop_latency(connection.hop.inter_node);
    if (connection.hop.inter_node) {
      // Each message's channels move at most the connection cap each, over its queue pairs: a
      // connection that relays several messages carries their channels side by side. (A copy
      // into the relay, weighted by the channels, gets that cap too; NVLink is never the slower.)
      // The network flows carry 1 / net_efficiency wire bytes per byte, so a stream moves that
      // share of whichever rate binds it, its path's or its channels'.
      task.flow_cap =
          sim::Bandwidth{timing.flow_cap(static_cast<std::size_t>(timing.qps())).bytes_per_s *
                         static_cast<double>(connection.messages.size())};
    }
    sim::Bytes wire;
    std::int64_t payload = 0;
    for (const int m : connection.messages) {
      const P2pMessage& message = plan.messages[at(m)];
      const sim::Bytes bytes = wire_bytes(message.bytes, timing.wire_factor);
      wire = sim::bytes(wire.count + bytes.count);
      payload += message.bytes.count;
      if (message.hop.relay_gpu >= 0) {
        // The sender's copy over NVLink into the relay's buffers, on its channels to the peer.
        task.flows.push_back({.path = copy_path(message.hop.src, connection.hop.src),
                              .weight = static_cast<float>(per_connection),
                              .bytes = bytes});
      }
    }
    // Every channel and queue pair of a connection is a connection of its own to ECMP's hash,
    // drawn as its first message's; those that draw the same paths (under one leaf, or every
    // adaptive lane) move as one flow per path, weighted by their count, at the rates they would
    // have apart.
    const std::uint64_t parts = connection.hop.inter_node ? per_connection : 1;
    if (connection.hop.inter_node) {
      wire = wire_bytes(wire, 1.0 / timing.net_efficiency);
    }
    const auto first = static_cast<std::uint64_t>(connection.messages.front());
    routes.clear();
    for (std::uint64_t part = 0; part < parts; ++part) {
      Paths lanes = hop_paths(system, comm, connection.hop, first * per_connection + part);
      const sim::Bytes share = even_share(wire, parts, part);
      const auto same = std::find_if(routes.begin(), routes.end(),
                                     [&](const Route& route) { return route.lanes == lanes; });
      if (same != routes.end()) {
        same->bytes = sim::bytes(same->bytes.count + share.count);
        same->parts += 1.0F;
      } else {
        routes.push_back({std::move(lanes), share, 1.0F});
      }
    }
    for (const Route& route : routes) {
      for (std::size_t lane = 0; lane < route.lanes.size(); ++lane) {
        task.flows.push_back({.path = dag.paths.add(route.lanes[lane]),
                              .weight = route.parts,
                              .bytes = even_share(route.bytes, route.lanes.size(), lane)});
      }
    }
    dag.tasks.push_back(std::move(task));
    if (traced) {
      dag.senders.push_back({connection.hop.src, 0, connection.hop.dst, payload, 0U});
    }
  }
  return dag;
}

}  // namespace railsim::models
