// File: models/system/fabric_cabling.cpp
// The rails of the NICs, the NIC ports and the cables between switches of a System's fabric.
#include "models/system/fabric_cabling.hpp"

#include "models/fabric/cabling.hpp"
#include "models/fabric/switch_radix.hpp"
#include "models/fabric/wire.hpp"
#include "sim/hash_mix.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

namespace railsim::models {
namespace {

using sim::at;

// A cable between two switch vertices, both directions, as links and graph edges; `upper` names
// the upper switch's end with the lower switch's port ("spine1.5").
void cable(SystemLinks& m,
           std::size_t lower_vertex,
           std::size_t upper_vertex,
           const std::string& lower,
           const std::string& upper,
           sim::Bandwidth rate,
           sim::Duration hop,
           LinkRole role) {
  const sim::LinkId up = m.add(rate, hop, lower + ">" + upper, role);
  const sim::LinkId down = m.add(rate, hop, upper + ">" + lower, role);
  m.pair_cable({up, down});
  m.fabric.add_edge(lower_vertex, upper_vertex, up);
  m.fabric.add_edge(upper_vertex, lower_vertex, down);
}

// Each compute NIC's port to its leaf, both directions, at the lower of the NIC's and the
// fabric's line rate.
void wire_node_ports(const System& system, SystemLinks& m, double wire) {
  const FabricSpec& fabric = system.spec().fabric;
  for (int n = 0; n < system.spec().nodes; ++n) {
    for (int i = 0; i < m.rails && m.built[at(n)]; ++i) {
      const Nic& nic = system.node_spec(n).nics[at(system.compute_nics()[at(i)])];
      if (nic.transport != fabric.transport) {
        throw sim::InputError(fmt::format("NIC {} speaks {} but the fabric is {}", nic.name,
                                          transport_name(nic.transport),
                                          transport_name(fabric.transport)));
      }
      const sim::Bandwidth rate =
          sim::Bandwidth{std::min(nic.port_rate.bytes_per_s, fabric.port_rate.bytes_per_s)} *
          (wire * nic.bandwidth_efficiency);
      const std::string nic_name = fmt::format("n{}.{}", n, nic.name);
      const std::string leaf_name = fmt::format("leaf{}", system.leaf_of(n, i));
      m.nodes[at(n)].ports.push_back(
          {m.add(rate, fabric.cable_latency, fmt::format("{}>{}", nic_name, leaf_name),
                 LinkRole::kNodePort),
           m.add(rate, fabric.switch_latency + fabric.cable_latency,
                 fmt::format("{}>{}", leaf_name, nic_name), LinkRole::kNodePort)});
      m.pair_cable(m.nodes[at(n)].ports.back());
    }
  }
}

// A leaf's uplinks; with three tiers, also sets each spine's (m.spine_uplinks).
int count_uplinks(const FabricSpec& fabric, SystemLinks& m) {
  const int uplinks = leaf_uplinks(fabric);
  if (uplinks < 1) {
    throw sim::InputError(
        fmt::format("fabric: {} nodes per leaf at {}:1 oversubscription leave a leaf no uplink",
                    fabric.nodes_per_leaf, fabric.oversubscription));
  }
  if (fabric.tiers != 3) {
    return uplinks;
  }
  // Every spine of a pod then has the same downlinks and uplinks, which the bisection of
  // fabric_summary.hpp and the even spread of adaptive lanes rely on.
  if (uplinks % fabric.spines != 0) {
    throw sim::InputError(fmt::format(
        "fabric: three tiers need a leaf's uplinks to divide evenly over the spines of its pod; "
        "{} uplinks over {} spines do not",
        uplinks, fabric.spines));
  }
  m.spine_uplinks = spine_uplinks(fabric, m.rails);
  if (m.spine_uplinks < 1) {
    throw sim::InputError(fmt::format(
        "fabric: {} downlinks per spine at {}:1 core oversubscription leave a spine no uplink",
        spine_downlinks(fabric, m.rails), fabric.core_oversubscription));
  }
  return uplinks;
}

void wire_cables(const System& system, SystemLinks& m, sim::Bandwidth rate) {
  const FabricSpec& fabric = system.spec().fabric;
  const int uplinks = count_uplinks(fabric, m);
  const bool three_tiers = fabric.tiers == 3;
  const int leaves = system.leaf_count();
  const int plane_spines = m.pods * fabric.spines;
  const int spines = fabric.planes * plane_spines;
  const int cores = three_tiers ? fabric.planes * fabric.cores : 0;
  for (int leaf = 0; leaf < leaves; ++leaf) {
    m.fabric.add_switch({0, leaf, std::min(uplinks, fabric.spines)});
  }
  for (int spine = 0; spine < spines; ++spine) {
    m.fabric.add_switch(
        {1, spine % fabric.spines, three_tiers ? std::min(m.spine_uplinks, fabric.cores) : 0});
  }
  for (int core = 0; core < cores; ++core) {
    m.fabric.add_switch({2, core, 0});
  }
  const sim::Duration hop = fabric.switch_latency + fabric.cable_latency;
  for (int leaf = 0; leaf < leaves; ++leaf) {
    for (int port = 0; port < uplinks; ++port) {
      const int pod = m.plane_of_leaf(at(leaf)) * m.pods + m.pod_of_leaf(at(leaf));
      const int spine = pod * fabric.spines + port % fabric.spines;
      cable(m, at(leaf), at(leaves + spine), fmt::format("leaf{}", leaf),
            fmt::format("spine{}.{}", spine, port), rate * fabric.uplink_efficiency, hop,
            LinkRole::kLeafSpine);
    }
  }
  for (int spine = 0; spine < spines; ++spine) {
    // The same cores for the spine at one position of every pod: a core joins all pods of its
    // plane.
    const int first = spine % fabric.spines * m.spine_uplinks;
    for (int port = 0; port < m.spine_uplinks; ++port) {  // none with two tiers
      const int core = spine / plane_spines * fabric.cores + (first + port) % fabric.cores;
      cable(m, at(leaves + spine), at(leaves + spines + core), fmt::format("spine{}", spine),
            fmt::format("core{}.{}", core, port), rate * fabric.core_uplink_efficiency, hop,
            LinkRole::kSpineCore);
    }
  }
}

}  // namespace

std::vector<std::vector<int>> cable_rails(const SystemSpec& spec, int rails) {
  const FabricSpec& fabric = spec.fabric;
  std::vector<std::vector<int>> rail(at(spec.nodes));
  for (int n = 0; n < spec.nodes; ++n) {
    rail[at(n)].resize(at(rails));
    std::iota(rail[at(n)].begin(), rail[at(n)].end(), 0);
  }
  const auto plane_rails = static_cast<std::size_t>(rails_per_plane(fabric, rails));
  if (fabric.rails == RailMapping::kTopOfRack) {
    if (const auto problem = top_of_rack_problem(fabric.nodes_per_leaf, fabric.planes, rails)) {
      throw sim::InputError("fabric: " + *problem);
    }
    const int nodes_per_rack = fabric.nodes_per_leaf / rails;
    for (int n = 0; n < spec.nodes; ++n) {
      std::fill(rail[at(n)].begin(), rail[at(n)].end(), n % fabric.nodes_per_leaf / nodes_per_rack);
    }
  }
  if (fabric.rails == RailMapping::kMisaligned) {
    // Fisher-Yates with the engine's own draws, so every platform cables alike; each plane's
    // rails among themselves.
    std::uint64_t state = fabric.rail_seed;
    for (auto& row : rail) {
      for (std::size_t first = 0; first < row.size(); first += plane_rails) {
        for (std::size_t i = plane_rails - 1; i > 0; --i) {
          state = sim::hash_mix(state, i);
          std::swap(row[first + i], row[first + state % (i + 1)]);
        }
      }
    }
  }
  if (fabric.rails == RailMapping::kExplicit) {
    if (const auto problem = find_cabling_problem(fabric.cabling, spec.nodes, rails)) {
      throw sim::InputError(
          problem->node < 0  ? "cabling: " + problem->message
          : problem->nic < 0 ? fmt::format("cabling: node {}: {}", problem->node, problem->message)
                             : fmt::format("cabling: node {} NIC {}: {}", problem->node,
                                           problem->nic, problem->message));
    }
    rail = fabric.cabling;
    const auto plane = [&](int r) { return r / static_cast<int>(plane_rails); };
    for (int n = 0; n < spec.nodes; ++n) {
      for (int i = 0; i < rails; ++i) {
        if (plane(rail[at(n)][at(i)]) != plane(i)) {
          throw sim::InputError(fmt::format(
              "cabling: node {} NIC {}: rail {} is in plane {}, NIC {}'s plane is {}: the planes "
              "share no switch, so NCCL's rings on NIC {} would have no path",
              n, i, rail[at(n)][at(i)], plane(rail[at(n)][at(i)]), i, plane(i), i));
        }
      }
    }
  }
  return rail;
}

void wire_fabric(const System& system, SystemLinks& links) {
  const FabricSpec& fabric = system.spec().fabric;
  const double wire = wire_efficiency(fabric.transport, fabric.mtu);
  wire_node_ports(system, links, wire);
  wire_cables(system, links, fabric.port_rate * wire);
}

}  // namespace railsim::models
