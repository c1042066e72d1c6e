// File: models/collective/connection_routes.cpp
// Routes of ring hops and tree edges, computed once each, and what a connection's routes give its
// task, its flow groups and its timing.
#include "models/collective/connection_routes.hpp"

#include "sim/assert.hpp"

#include <algorithm>
#include <span>

namespace railsim::models {

Paths hop_paths(const System& system,
                const Communicator& comm,
                const RingHop& hop,
                std::uint64_t queue_pair) {
  // The System knows its own node and GPU indices, not the communicator's.
  const int src_node = comm.system_node(comm.node_of(hop.src));
  const int src_gpu = comm.system_gpu(comm.gpu_of(hop.src));
  const int dst_gpu = comm.system_gpu(comm.gpu_of(hop.dst));
  if (!hop.inter_node) {
    return {system.route_in_node(src_node, src_gpu, dst_gpu)};
  }
  const int relay_gpu = hop.relay_gpu >= 0 ? comm.system_gpu(hop.relay_gpu) : -1;
  const Endpoint src{src_node, hop.send_nic, relay_gpu >= 0 ? relay_gpu : src_gpu};
  const Endpoint dst{comm.system_node(comm.node_of(hop.dst)), hop.recv_nic, dst_gpu};
  Paths paths = system.routes(src, dst, queue_pair);
  if (relay_gpu >= 0) {
    // PXN: over NVLink to the GPU beside the NIC first.
    const std::vector<sim::LinkId> relay = system.route_in_node(src_node, src_gpu, relay_gpu);
    for (auto& path : paths) {
      path.insert(path.begin(), relay.begin(), relay.end());
    }
  }
  return paths;
}

DagTask connection_task(RouteSpan route,
                        sim::Bytes payload,
                        bool inter_node,
                        const CollectiveTiming& timing) {
  const sim::Bytes wire = wire_bytes(payload, timing.wire_factor);
  DagTask task;
  task.flows.reserve(route.count);
  for (std::uint32_t i = 0; i < route.count; ++i) {
    task.flows.push_back({.path = route.first + i, .bytes = even_share(wire, route.count, i)});
  }
  task.flow_cap = timing.flow_cap(route.count);
  task.hold = timing.hop_latency(inter_node);
  task.streams = timing.streams;
  return task;
}

ConnectionRoutes::ConnectionRoutes(const System& system,
                                   const Communicator& comm,
                                   std::size_t connections,
                                   int qps,
                                   PathTable leading)
    : system_(system),
      comm_(comm),
      qps_(std::max(1, qps)),
      paths_(std::move(leading)),
      spans_(connections * static_cast<std::size_t>(qps_)) {}

RouteSpan ConnectionRoutes::route(std::size_t connection, int channel, const RingHop& hop, int qp) {
  const int queue_pair = hop.inter_node ? qp : 0;
  std::optional<RouteSpan>& span =
      spans_[connection * static_cast<std::size_t>(qps_) + static_cast<std::size_t>(queue_pair)];
  if (!span) {
    const Paths lanes =
        hop_paths(system_, comm_, hop,
                  static_cast<std::uint64_t>(channel) * static_cast<std::uint64_t>(qps_) +
                      static_cast<std::uint64_t>(queue_pair));
    span = RouteSpan{static_cast<std::uint32_t>(paths_.size()),
                     static_cast<std::uint32_t>(lanes.size())};
    for (const std::vector<sim::LinkId>& lane : lanes) {
      paths_.add(lane);
    }
  }
  return *span;
}

RouteSpan ConnectionRoutes::fixed(std::size_t connection, std::span<const sim::LinkId> links) {
  const std::size_t first = connection * static_cast<std::size_t>(qps_);
  if (!spans_[first]) {
    const RouteSpan span{static_cast<std::uint32_t>(paths_.size()), 1};
    paths_.add(links);
    std::fill_n(spans_.begin() + static_cast<std::ptrdiff_t>(first), qps_, span);
  }
  return *spans_[first];
}

std::vector<std::uint32_t> ConnectionRoutes::all_paths(std::size_t connection,
                                                       int channel,
                                                       const RingHop& hop) {
  std::vector<std::uint32_t> flat;
  for (int q = 0; q < (hop.inter_node ? qps_ : 1); ++q) {
    const RouteSpan span = route(connection, channel, hop, q);
    for (std::uint32_t i = 0; i < span.count; ++i) {
      flat.push_back(span.first + i);
    }
  }
  return flat;
}

TimedConnection timed_connection(ConnectionRoutes& routes,
                                 const sim::FlowNetwork& network,
                                 const CollectiveTiming& timing,
                                 std::size_t connection,
                                 int channel,
                                 const RingHop& hop,
                                 bool sharing) {
  TimedConnection timed;
  timed.sharing.cap = timing.connection_cap.bytes_per_s;
  for (int q = 0; q < (hop.inter_node ? timing.qps() : 1); ++q) {
    const RouteSpan route = routes.route(connection, channel, hop, q);
    sim::Duration longest{};
    for (std::uint32_t p = route.first; p < route.first + route.count; ++p) {
      longest = std::max(longest, path_latency(network, routes.paths()[p]));
    }
    const sim::Duration delay = timing.hop_latency(hop.inter_node) + longest;
    timed.delay = std::max(timed.delay, delay);
    if (sharing) {
      SharingRoute& shared = timed.sharing.routes.emplace_back();
      for (std::uint32_t p = route.first; p < route.first + route.count; ++p) {
        const std::span<const sim::LinkId> lane = routes.paths()[p];
        shared.lanes.emplace_back(lane.begin(), lane.end());
      }
      shared.delay_s = sim::to_seconds(delay);
    }
  }
  return timed;
}

std::vector<PipelineGroup> connection_groups(const std::vector<std::vector<std::uint32_t>>& paths,
                                             const std::vector<sim::Bytes>& payload,
                                             const CollectiveTiming& timing) {
  RAILSIM_ASSERT(paths.size() == payload.size(), "a payload per connection");
  std::size_t subs = 1;
  for (const std::vector<std::uint32_t>& flat : paths) {
    subs = std::max(subs, flat.size());
  }
  std::vector<PipelineGroup> groups(subs);
  for (std::size_t j = 0; j < subs; ++j) {
    PipelineGroup& group = groups[j];
    group.cap = timing.flow_cap(subs);
    group.members.reserve(paths.size());
    for (std::size_t p = 0; p < paths.size(); ++p) {
      const std::vector<std::uint32_t>& flat = paths[p];
      group.members.push_back(
          {.path = flat[j % flat.size()],
           .bytes = even_share(wire_bytes(payload[p], timing.wire_factor), subs, j)});
    }
  }
  return groups;
}

}  // namespace railsim::models
