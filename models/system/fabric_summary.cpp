// File: models/system/fabric_summary.cpp
// The fabric's figures, read off the links a System builds: a fault-free build of the same spec
// gives the designed rates, the network at hand the counts and the faults.
#include "models/system/fabric_summary.hpp"

#include "models/fabric/wire.hpp"
#include "sim/assert.hpp"
#include "sim/simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <string_view>

namespace railsim::models {

sim::Bandwidth rail_bisection(const LeafSpineShape& shape) {
  RAILSIM_ASSERT(shape.nodes >= 0 && shape.nodes_per_leaf >= 1 && shape.uplinks_per_leaf >= 0,
                 "rail_bisection: expected nodes >= 0, nodes_per_leaf >= 1, uplinks >= 0");
  const double port = shape.node_port.bytes_per_s;
  const double uplinks = shape.uplinks_per_leaf * shape.uplink.bytes_per_s;
  const int unit = shape.nodes_per_leaf;
  const int full_units = shape.nodes / unit;
  const int last = shape.nodes % unit;  // nodes of the partial last unit; 0 when there is none
  // g_u(b): unit of `size` nodes with b of them on side B, the spines on side A.
  auto unit_cost = [&](int size, int on_b) {
    return std::min(on_b * port, (size - on_b) * port + uplinks);
  };
  double best = std::numeric_limits<double>::infinity();
  // Every vertex: j full units and perhaps the partial one wholly on B, at most one unit split.
  for (const int half : {shape.nodes / 2, shape.nodes - shape.nodes / 2}) {
    for (int j = 0; j <= full_units; ++j) {
      for (int last_on_b = 0; last_on_b <= (last > 0 ? 1 : 0); ++last_on_b) {
        const int rest = half - j * unit - last_on_b * last;
        if (rest < 0) {
          continue;
        }
        const double whole = j * unit_cost(unit, unit) + last_on_b * unit_cost(last, last);
        if (rest == 0) {
          best = std::min(best, whole);
        }
        if (rest > 0 && rest < unit && j < full_units) {
          best = std::min(best, whole + unit_cost(unit, rest));
        }
        if (rest > 0 && rest < last && last_on_b == 0) {
          best = std::min(best, whole + unit_cost(last, rest));
        }
      }
    }
  }
  RAILSIM_ASSERT(best < std::numeric_limits<double>::infinity(), "some split always exists");
  return sim::Bandwidth{best};
}

FabricSummary summarize(const System& system, const sim::FlowNetwork& network) {
  const SystemSpec& spec = system.spec();
  sim::Simulator simulator;
  sim::FlowNetwork designed_network(simulator);
  const System designed(spec, designed_network);
  RAILSIM_ASSERT(network.link_count() == designed_network.link_count(),
                 "summarize: the network must hold the System's links and no others");

  FabricSummary s;
  s.nodes = spec.nodes;
  s.rails = static_cast<int>(system.compute_nics().size());
  s.nodes_per_leaf = spec.fabric.nodes_per_leaf;
  s.leaves = system.leaf_count();
  s.scalable_units = s.leaves / s.rails;
  s.spines = spec.fabric.spines;
  s.line_rate = spec.fabric.port_rate;
  s.wire_efficiency = wire_efficiency(spec.fabric.transport, spec.fabric.mtu);
  s.requested_oversubscription = spec.fabric.oversubscription;
  s.total_links = static_cast<int>(network.link_count());

  // Only the asserts below look links up by name, so the scan runs only where they are on.
  [[maybe_unused]] auto has_link = [&](const std::string& name) {
    for (std::uint32_t l = 0; l < designed_network.link_count(); ++l) {
      if (designed_network.link(sim::LinkId{l}).name == name) {
        return true;
      }
    }
    return false;
  };
  // NIC ports and leaf-spine cables, at their designed rates. The designed copy numbers its
  // links as `system` does, so the System's own classification applies to both.
  s.node_port_rate = sim::kUnboundedBandwidth;
  s.port_rate = sim::kUnboundedBandwidth;
  for (std::uint32_t l = 0; l < network.link_count(); ++l) {
    const sim::Bandwidth rate = designed_network.link(sim::LinkId{l}).capacity;
    if (system.is_node_port_link(sim::LinkId{l})) {
      ++s.node_port_links;
      s.node_port_rate = std::min(s.node_port_rate, rate);
    } else if (system.is_spine_link(sim::LinkId{l})) {
      ++s.leaf_spine_links;
      s.port_rate = std::min(s.port_rate, rate);
    }
  }
  s.node_links = s.total_links - s.node_port_links - s.leaf_spine_links;
  s.uplinks_per_leaf = s.leaf_spine_links / (2 * s.leaves);
  RAILSIM_ASSERT(s.uplinks_per_leaf >= 1 && s.leaf_spine_links == 2 * s.leaves * s.uplinks_per_leaf,
                 "every leaf has the same uplinks, each a pair of links");

  // Uplink `port` of a leaf goes to spine port % spines (fabric_spec.hpp).
  s.uplinks_to_spine.assign(static_cast<std::size_t>(s.spines), 0);
  for (int port = 0; port < s.uplinks_per_leaf; ++port) {
    RAILSIM_ASSERT(has_link(fmt::format("leaf0>spine{}.{}", port % s.spines, port)),
                   "uplinks are spread round-robin over the spines");
    ++s.uplinks_to_spine[static_cast<std::size_t>(port % s.spines)];
  }

  s.leaf_downlink = s.node_port_rate * s.nodes_per_leaf;
  s.leaf_uplink = s.port_rate * s.uplinks_per_leaf;
  s.oversubscription = s.leaf_downlink.bytes_per_s / s.leaf_uplink.bytes_per_s;
  s.bisection = rail_bisection({s.nodes, s.nodes_per_leaf, s.uplinks_per_leaf, s.node_port_rate,
                                s.port_rate}) *
                s.rails;

  for (std::uint32_t l = 0; l < network.link_count(); ++l) {
    const sim::LinkSpec& now = network.link(sim::LinkId{l});
    const sim::LinkSpec& built = designed_network.link(sim::LinkId{l});
    RAILSIM_ASSERT(now.name == built.name, "summarize: the network holds the System's links");
    if (now.capacity != built.capacity) {
      s.degraded.push_back({now.name, now.capacity, built.capacity});
    }
  }
  return s;
}

}  // namespace railsim::models
