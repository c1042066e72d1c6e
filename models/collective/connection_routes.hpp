// File: models/collective/connection_routes.hpp
// ConnectionRoutes: the paths the connections of a collective (a ring's hops, a tree's edges)
// take over a System, per queue pair, each computed when first asked for and kept once in one
// flat list of paths, which the executors' TransferDag and GroupPipeline index.
//
// A hop inside a node takes the NVLink (or PCIe) route; one between nodes leaves through the
// sender's NIC (after an NVLink hop to the PXN relay, if any) and enters through the receiver's,
// on one path, or one per adaptive-routing lane. Queue pairs exist only between nodes; their
// index, with the channel's, tells ECMP's hash the flows apart. Hops name communicator-local
// ranks and GPUs, mapped to the System's nodes and GPUs here.
#pragma once

#include "models/collective/collective_timing.hpp"
#include "models/collective/communicator.hpp"
#include "models/collective/group_pipeline.hpp"
#include "models/collective/path_table.hpp"
#include "models/collective/ring_layout.hpp"
#include "models/collective/slice_sharing.hpp"
#include "models/collective/transfer_dag.hpp"
#include "models/system/system.hpp"
#include "sim/flow_network.hpp"
#include "sim/time.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace railsim::models {

using Paths = std::vector<std::vector<sim::LinkId>>;

// The paths one message of a hop takes: one, or one per adaptive-routing lane. `queue_pair`
// tells ECMP's hash the flows of different channels and queue pairs apart.
Paths hop_paths(const System& system,
                const Communicator& comm,
                const RingHop& hop,
                std::uint64_t queue_pair);

// The paths of one connection and queue pair: paths()[first .. first + count), equal shares.
struct RouteSpan {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
};

// The task of one message of `payload` bytes over a connection's `route`: its wire bytes split
// evenly over the route's lanes, each flow capped at its share of the connection's cap, held
// the hop latency of a hop `inter_node` or not. Its dependencies are the caller's to add.
DagTask connection_task(RouteSpan route,
                        sim::Bytes payload,
                        bool inter_node,
                        const CollectiveTiming& timing);

class ConnectionRoutes {
 public:
  // Connections are numbered 0 .. connections - 1 by the caller; each has `qps` queue pairs.
  // The routes' paths follow `leading`, paths of the caller's own (NVSwitch ports).
  ConnectionRoutes(const System& system,
                   const Communicator& comm,
                   std::size_t connections,
                   int qps,
                   PathTable leading = {});

  // The route of `connection` (the hop `hop` of channel `channel`) for queue pair `qp`; a hop
  // inside a node has one route whatever the queue pair.
  RouteSpan route(std::size_t connection, int channel, const RingHop& hop, int qp);

  // Gives `connection` the one path `links`, whatever the queue pair (the first call for it
  // keeps it): a stream of a switch's reduction tree, whose links SHARP chooses.
  RouteSpan fixed(std::size_t connection, std::span<const sim::LinkId> links);

  // Every path of `connection`, queue pairs first, lanes within, as indices into paths().
  std::vector<std::uint32_t> all_paths(std::size_t connection, int channel, const RingHop& hop);

  const PathTable& paths() const { return paths_; }

  // Hands the list over once the routes are all asked for.
  PathTable take_paths() { return std::move(paths_); }

 private:
  const System& system_;
  Communicator comm_;
  int qps_;
  PathTable paths_;
  std::vector<std::optional<RouteSpan>> spans_;  // by connection x qps + queue pair
};

// One connection as the pipelined timing sees it (channel_timing.hpp): its delay, the longest
// over its queue pairs of the hop latency plus the route's path latency, and, with `sharing`,
// the route of each queue pair (one for a hop inside a node) with its own delay, at the
// protocol's cap, for slice sharing to complete with the connection's transfers and inputs.
struct TimedConnection {
  sim::Duration delay{};
  SharingConnection sharing;
};

TimedConnection timed_connection(ConnectionRoutes& routes,
                                 const sim::FlowNetwork& network,
                                 const CollectiveTiming& timing,
                                 std::size_t connection,
                                 int channel,
                                 const RingHop& hop,
                                 bool sharing);

// A channel's flow groups, whose members are its connections: group j takes path j mod (that
// connection's count) of each connection's `paths` (ConnectionRoutes::all_paths), so that every
// path carries an equal share of its connection's `payload`, in wire bytes, and each group's
// rate is capped at its share of a connection's cap.
std::vector<PipelineGroup> connection_groups(const std::vector<std::vector<std::uint32_t>>& paths,
                                             const std::vector<sim::Bytes>& payload,
                                             const CollectiveTiming& timing);

}  // namespace railsim::models
