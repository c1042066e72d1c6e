// File: models/system/fabric_summary.cpp
// The fabric's figures, read off the links a System builds: a fault-free build of the same spec
// gives the designed rates, the network at hand the counts and the faults.
#include "models/system/fabric_summary.hpp"

#include "models/fabric/wire.hpp"
#include "sim/assert.hpp"
#include "sim/ceil_div.hpp"
#include "sim/simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace railsim::models {

FabricSummary summarize(const System& system, const sim::FlowNetwork& network) {
  const SystemSpec& spec = system.spec();
  const FabricSpec& fabric = spec.fabric;
  sim::Simulator simulator;
  sim::FlowNetwork designed_network(simulator);
  const System designed(spec, designed_network);
  RAILSIM_ASSERT(network.link_count() == designed_network.link_count(),
                 "summarize: the network must hold the System's links and no others");

  FabricSummary s;
  const bool three_tiers = fabric.tiers == 3;
  s.tiers = fabric.tiers;
  s.nodes = spec.nodes;
  s.rails = static_cast<int>(system.compute_nics().size());
  s.nodes_per_leaf = fabric.nodes_per_leaf;
  s.leaves = system.leaf_count();
  s.scalable_units = s.leaves / s.rails;
  s.planes = fabric.planes;
  s.rails_per_plane = rails_per_plane(fabric, s.rails);
  s.spines = s.planes * fabric.spines;
  if (three_tiers) {
    s.units_per_pod = fabric.units_per_pod;
    s.pods = sim::ceil_div(s.scalable_units, s.units_per_pod);
    s.spines_per_pod = fabric.spines;
    s.spines = s.planes * s.pods * s.spines_per_pod;
    s.cores_per_plane = fabric.cores;
    s.cores = s.planes * s.cores_per_plane;
    s.requested_core_oversubscription = fabric.core_oversubscription;
  }
  s.line_rate = fabric.port_rate;
  for (const int nic : system.compute_nics()) {
    s.nic_line_rate =
        std::max(s.nic_line_rate, spec.node.nics.at(static_cast<std::size_t>(nic)).port_rate);
  }
  s.wire_efficiency = wire_efficiency(fabric.transport, fabric.mtu);
  s.requested_oversubscription = fabric.oversubscription;
  s.total_links = static_cast<int>(network.link_count());

  // NIC ports and cables between switches, at their designed rates. The designed copy numbers
  // its links as `system` does, so the System's own classification applies to both.
  s.node_port_rate = sim::kUnboundedBandwidth;
  s.port_rate = sim::kUnboundedBandwidth;
  s.core_port_rate = three_tiers ? sim::kUnboundedBandwidth : sim::Bandwidth{};
  for (std::uint32_t l = 0; l < network.link_count(); ++l) {
    const sim::Bandwidth rate = designed_network.link(sim::LinkId{l}).capacity;
    if (system.is_node_port_link(sim::LinkId{l})) {
      ++s.node_port_links;
      s.node_port_rate = std::min(s.node_port_rate, rate);
    } else if (system.is_spine_link(sim::LinkId{l})) {
      ++s.leaf_spine_links;
      s.port_rate = std::min(s.port_rate, rate);
    } else if (system.is_core_link(sim::LinkId{l})) {
      ++s.spine_core_links;
      s.core_port_rate = std::min(s.core_port_rate, rate);
    }
  }
  s.node_links = s.total_links - s.node_port_links - s.leaf_spine_links - s.spine_core_links;
  s.uplinks_per_leaf = s.leaf_spine_links / (2 * s.leaves);
  RAILSIM_ASSERT(s.uplinks_per_leaf >= 1 && s.leaf_spine_links == 2 * s.leaves * s.uplinks_per_leaf,
                 "every leaf has the same uplinks, each a pair of links");
  s.uplinks_per_spine = s.spine_core_links / (2 * s.spines);
  RAILSIM_ASSERT(s.spine_core_links == 2 * s.spines * s.uplinks_per_spine &&
                     (s.uplinks_per_spine >= 1) == three_tiers,
                 "with three tiers every spine has the same uplinks, each a pair of links");

  // Uplink `port` of a leaf goes to spine port % spines of its pod, uplink `port` of spine 0 to
  // core port % cores (fabric_spec.hpp), the first cores of its group.
  const int spines_of_leaf = fabric.spines;
  s.uplinks_to_spine.assign(static_cast<std::size_t>(spines_of_leaf), 0);
  for (int port = 0; port < s.uplinks_per_leaf; ++port) {
    RAILSIM_ASSERT(
        designed_network.find_link(fmt::format("leaf0>spine{}.{}", port % spines_of_leaf, port))
            .has_value(),
        "uplinks are spread round-robin over the spines");
    ++s.uplinks_to_spine[static_cast<std::size_t>(port % spines_of_leaf)];
  }
  const int cores = s.cores_per_plane;
  s.uplinks_to_core.assign(static_cast<std::size_t>(std::min(cores, s.uplinks_per_spine)), 0);
  for (int port = 0; port < s.uplinks_per_spine; ++port) {
    RAILSIM_ASSERT(
        designed_network.find_link(fmt::format("spine0>core{}.{}", port % cores, port)).has_value(),
        "spine 0's uplinks are spread round-robin over the first cores");
    ++s.uplinks_to_core[static_cast<std::size_t>(port % cores)];
  }

  s.leaf_downlink = s.node_port_rate * s.nodes_per_leaf;
  s.leaf_uplink = s.port_rate * s.uplinks_per_leaf;
  s.oversubscription = s.leaf_downlink.bytes_per_s / s.leaf_uplink.bytes_per_s;
  // Top-of-rack, a leaf holds whole nodes with all their ports: the fabric cuts as one rail of
  // leaves of nodes_per_leaf / rails nodes, each node's port its rails' together.
  const bool by_rack = fabric.rails == RailMapping::kTopOfRack;
  const int cut_rails = by_rack ? 1 : s.rails;
  const int nodes_a_leaf = by_rack ? s.nodes_per_leaf / s.rails : s.nodes_per_leaf;
  const sim::Bandwidth node_port = s.node_port_rate * (by_rack ? s.rails : 1);
  if (!three_tiers) {
    s.bisection =
        rail_bisection({s.nodes, nodes_a_leaf, s.uplinks_per_leaf, node_port, s.port_rate}) *
        cut_rails;
  } else {
    s.downlinks_per_spine = s.rails_per_plane * s.units_per_pod * s.uplinks_to_spine.front();
    s.spine_downlink = s.port_rate * s.downlinks_per_spine;
    s.spine_uplink = s.core_port_rate * s.uplinks_per_spine;
    s.core_oversubscription = s.spine_downlink.bytes_per_s / s.spine_uplink.bytes_per_s;
    // Planes share no switch and each holds rails_per_plane NICs of every node: each is cut
    // least at the same split of the nodes, as rails are (fabric_bisection.hpp). Top-of-rack,
    // a pod's units hold `rails` racks each.
    s.bisection =
        three_tier_bisection({s.nodes, nodes_a_leaf, s.units_per_pod * (by_rack ? s.rails : 1),
                              by_rack ? 1 : s.rails_per_plane, s.uplinks_per_leaf, s.spines_per_pod,
                              s.uplinks_per_spine, node_port, s.port_rate, s.core_port_rate}) *
        s.planes;
  }

  for (std::uint32_t l = 0; l < network.link_count(); ++l) {
    const sim::LinkInfo now = network.link(sim::LinkId{l});
    const sim::LinkInfo built = designed_network.link(sim::LinkId{l});
    RAILSIM_ASSERT(now.name == built.name, "summarize: the network holds the System's links");
    if (now.capacity != built.capacity) {
      s.degraded.push_back({std::string(now.name), now.capacity, built.capacity});
    }
  }
  return s;
}

}  // namespace railsim::models
