// File: models/system/routes.cpp
// System's routes (system.hpp). Inside a node: node_routes.hpp. Between nodes: the sender's
// memory to its NIC, its port, the fabric switch by switch by the ECMP hash (ecmp.hpp) or an
// adaptive lane (adaptive_lanes.hpp), the receiver's port, its NIC to memory.
#include "models/system/adaptive_lanes.hpp"
#include "models/system/ecmp.hpp"
#include "models/system/node_routes.hpp"
#include "models/system/system.hpp"
#include "models/system/system_links.hpp"
#include "sim/assert.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace railsim::models {
namespace {

using sim::at;

// From leaf `from` to leaf `to` over the cables in service: at each switch one of the next hops
// one hop closer, as `choose(here, choices)` picks it.
template <class Choose>
void cross_fabric(const SystemLinks& m,
                  std::size_t from,
                  std::size_t to,
                  Choose choose,
                  std::vector<sim::LinkId>& path) {
  if (m.plane_of_leaf(from) != m.plane_of_leaf(to)) {
    throw sim::InputError(fmt::format(
        "no path from leaf{} to leaf{}: they are in planes {} and {}, which share no switch", from,
        to, m.plane_of_leaf(from), m.plane_of_leaf(to)));
  }
  if (!m.fabric.reaches(from, to)) {
    throw sim::InputError(
        fmt::format("no path from leaf{} to leaf{}: the cables between them are down", from, to));
  }
  std::vector<NextHop> choices;
  for (std::size_t here = from; here != to;) {
    m.fabric.next_hops(here, to, m.down_links, choices);
    RAILSIM_ASSERT(!choices.empty(), "a reachable switch has a next hop that is up");
    const NextHop& hop = choices[choose(here, choices)];
    path.push_back(sim::LinkId{hop.link});
    here = hop.next;
  }
}

// route() with `lane` >= 0 taking adaptive lane `lane` through the fabric instead of the hash.
std::vector<sim::LinkId> route_between_nodes(const System& system,
                                             const SystemLinks& m,
                                             Endpoint src,
                                             Endpoint dst,
                                             std::uint64_t queue_pair,
                                             int lane) {
  if (src.node == dst.node) {
    throw sim::InputError("route: both ends on node " + std::to_string(src.node) +
                          "; RDMA routes join two nodes");
  }
  RAILSIM_ASSERT(system.built(src.node) && system.built(dst.node),
                 "a route between nodes that are built");
  std::vector<sim::LinkId> path;
  NodePathBuilder build(system, m, path);
  build.memory_to_nic(src);
  build.port(src, true);
  const auto from = at(system.leaf_of(src.node, src.nic));
  const auto to = at(system.leaf_of(dst.node, dst.nic));
  if (lane < 0) {
    EcmpHash hash(system.spec().fabric.ecmp_seed, src, dst, queue_pair);
    cross_fabric(
        m, from, to,
        [&](std::size_t here, const std::vector<NextHop>& choices) {
          return hash.pick(here, choices.size());
        },
        path);
  } else {
    LaneWalk walk(m.fabric, static_cast<std::uint64_t>(lane));
    cross_fabric(
        m, from, to,
        [&](std::size_t here, const std::vector<NextHop>& choices) {
          return walk.pick(here, choices);
        },
        path);
  }
  build.port(dst, false);
  build.nic_to_memory(dst);
  return path;
}

}  // namespace

std::vector<sim::LinkId> System::route_in_node(int node, int from_gpu, int to_gpu) const {
  std::vector<sim::LinkId> path;
  NodePathBuilder(*this, *links_, path).gpu_to_gpu(node, from_gpu, to_gpu);
  return path;
}

std::vector<sim::LinkId> System::route(Endpoint src, Endpoint dst, std::uint64_t queue_pair) const {
  return route_between_nodes(*this, *links_, src, dst, queue_pair, -1);
}

std::vector<std::vector<sim::LinkId>> System::routes(Endpoint src,
                                                     Endpoint dst,
                                                     std::uint64_t queue_pair) const {
  const auto from = at(leaf_of(src.node, src.nic));
  const auto to = at(leaf_of(dst.node, dst.nic));
  std::vector<std::vector<sim::LinkId>> paths;
  if (spec_.fabric.routing == Routing::kEcmp || from == to) {
    paths.push_back(route(src, dst, queue_pair));  // moved, where {route(...)} would copy it
    return paths;
  }
  const int lanes = adaptive_lane_count(*links_, from, to);
  paths.reserve(at(lanes));
  for (int lane = 0; lane < lanes; ++lane) {
    paths.push_back(route_between_nodes(*this, *links_, src, dst, queue_pair, lane));
  }
  return paths;
}

}  // namespace railsim::models
