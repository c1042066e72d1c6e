// File: models/system/system_links.hpp
// SystemLinks: the links a System built, held by what they are (per node: PCIe, host memory,
// socket links, NVLink, NIC ports; the fabric: its cables and switch graph), for the files that
// build them (node_links, fabric_cabling) and route over them (node_routes, routes). Internal to
// models/system: callers see System.
#pragma once

#include "models/system/fabric_graph.hpp"
#include "sim/assert.hpp"
#include "sim/flow_network.hpp"
#include "sim/index.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace railsim::models {

// Up and down links between a PCIe element and its parent, a NIC and its leaf, or a lower and
// an upper switch.
struct Attachment {
  sim::LinkId up;
  sim::LinkId down;
};

// What a link is, for the queries of System and the links that may go down (kMemory: the host
// memory of a socket).
enum class LinkRole : std::uint8_t { kInNode, kMemory, kNodePort, kLeafSpine, kSpineCore };

// The links of one node; empty for a node that is not built.
struct NodeLinks {
  std::vector<Attachment> gpus;
  std::vector<Attachment> nics;
  std::vector<Attachment> switches;
  std::vector<sim::LinkId> memory;                            // per socket
  std::map<std::pair<int, int>, sim::LinkId> socket_links;    // (from, to)
  std::vector<Attachment> ports;                              // per compute NIC: up = NIC to leaf
  std::vector<Attachment> nvswitch_ports;                     // per GPU: up = GPU to NVSwitch
  std::map<std::pair<int, int>, sim::LinkId> nvlink_bridges;  // (from GPU, to GPU)
};

// Invariant: roles holds every link of the System by index, cables the pair of every fabric link.
struct SystemLinks {
  sim::FlowNetwork& net;
  std::vector<NodeLinks> nodes;
  std::vector<std::vector<int>> rail;  // [node][compute nic]
  int rails = 0;
  int planes = 1;         // the fabric's: rails / planes consecutive rails each
  int units = 0;          // scalable units: leaves per rail
  int units_per_pod = 0;  // all units with two tiers: one pod
  int pods = 0;
  int spine_uplinks = 0;           // per spine, three tiers only
  FabricGraph fabric;              // its hops computed over down_links
  std::vector<bool> down_links;    // by link index
  std::vector<LinkRole> roles;     // by link index
  std::vector<Attachment> cables;  // by link index: both directions of its cable
  std::vector<bool> built;         // by node

  explicit SystemLinks(sim::FlowNetwork& network) : net(network) {}

  // The links of node `n`, which must be built.
  const NodeLinks& links_of(int n) const {
    RAILSIM_ASSERT(built.at(sim::at(n)), "a route or a port of a node that is not built");
    return nodes[sim::at(n)];
  }

  sim::LinkId add(sim::Bandwidth capacity,
                  sim::Duration latency,
                  std::string name,
                  LinkRole role = LinkRole::kInNode) {
    const sim::LinkId id = net.add_link({capacity, latency, std::move(name)});
    roles.resize(id.index + 1, LinkRole::kInNode);
    roles[id.index] = role;
    return id;
  }

  Attachment attach(sim::Bandwidth capacity, const std::string& child, const std::string& parent) {
    return {add(capacity, sim::Duration::zero(), child + ">" + parent),
            add(capacity, sim::Duration::zero(), parent + ">" + child)};
  }

  void pair_cable(Attachment cable) {
    cables.resize(net.link_count(), Attachment{});
    cables[cable.up.index] = cable;
    cables[cable.down.index] = cable;
  }

  bool has_role(sim::LinkId link, LinkRole role) const {
    return link.index < roles.size() && roles[link.index] == role;
  }

  int pod_of_leaf(std::size_t leaf) const { return static_cast<int>(leaf) % units / units_per_pod; }

  int plane_of_leaf(std::size_t leaf) const {
    return static_cast<int>(leaf) / units / (rails / planes);
  }
};

}  // namespace railsim::models
