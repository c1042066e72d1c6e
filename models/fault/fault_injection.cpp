// File: models/fault/fault_injection.cpp
#include "models/fault/fault_injection.hpp"

#include "models/hardware/path_class.hpp"
#include "sim/flow_network.hpp"
#include "sim/hash_mix.hpp"
#include "sim/input_error.hpp"
#include "sim/simulator.hpp"

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>

namespace railsim::models {
namespace {

// Both directions of the cable whose upward link is named `up`.
std::array<std::string, 2> cable_names(const System& system,
                                       const sim::FlowNetwork& network,
                                       const std::string& up) {
  if (const std::optional<sim::LinkId> link = network.find_link(up)) {
    return {up, std::string(network.link(system.cable_of(*link).second).name)};
  }
  throw sim::InputError(fmt::format("the system has no cable {}", up));
}

// The two links (both directions) a port, PCIe, cable or down fault changes, as the system
// names them.
std::array<std::string, 2> fault_links(const System& system,
                                       const sim::FlowNetwork& network,
                                       const ElementFault& f) {
  if (f.kind == FaultKind::kSwitchCable) {
    return cable_names(system, network, f.cable);
  }
  const Nic& nic = faulted_nic(system.spec().node, f.nic);
  if (f.kind == FaultKind::kNicPcie) {
    auto [up, down] = pcie_link_names(system.spec().node, f.node, nic.name);
    return {std::move(up), std::move(down)};
  }
  const std::string port = fmt::format("n{}.{}", f.node, nic.name);
  const std::string leaf = fmt::format("leaf{}", system.leaf_of(f.node, f.nic));
  return {port + ">" + leaf, leaf + ">" + port};
}

// The fault's links at its rate, or down.
void apply_to_links(const ElementFault& f, System& system, sim::FlowNetwork& network) {
  for (const std::string& name : fault_links(system, network, f)) {
    const std::optional<sim::LinkId> link = network.find_link(name);
    if (!link) {
      throw sim::InputError(fmt::format("the system has no link {}", name));
    }
    if (f.kind == FaultKind::kNicDown) {
      system.set_link_down(*link);
    } else {
      network.set_link_capacity(*link, network.link(*link).capacity * f.scale);
    }
  }
}

// The node's two cables exchanged in the rail table: an aligned design (NIC i on rail i) is
// written out as its explicit table first. Cabled top-of-rack (a diagnosis pairing the two),
// both cables reach the node's one leaf, so nothing changes.
void swap_cables(SystemSpec& system, const ElementFault& f) {
  FabricSpec& fabric = system.fabric;
  if (fabric.rails == RailMapping::kTopOfRack) {
    return;
  }
  if (fabric.rails == RailMapping::kAligned) {
    const auto nics = static_cast<int>(compute_nic_indices(system.node).size());
    std::vector<int> aligned(static_cast<std::size_t>(nics));
    std::iota(aligned.begin(), aligned.end(), 0);
    fabric.cabling.assign(static_cast<std::size_t>(system.nodes), aligned);
    fabric.rails = RailMapping::kExplicit;
  }
  std::vector<int>& rails = fabric.cabling.at(static_cast<std::size_t>(f.node));
  std::swap(rails.at(static_cast<std::size_t>(f.nic)),
            rails.at(static_cast<std::size_t>(f.other_nic)));
}

}  // namespace

std::optional<PcieParent> other_socket_slot(const NodeSpec& node, int compute_nic) {
  const auto socket_of_numa = [&node](int numa) {
    return node.numa_nodes.at(static_cast<std::size_t>(numa)).socket;
  };
  const int nic = compute_nic_indices(node).at(static_cast<std::size_t>(compute_nic));
  const int own = socket_of_numa(numa_of(node, {DeviceRef::Kind::kNic, nic}));
  for (std::size_t b = 0; b < node.host_bridges.size(); ++b) {
    if (socket_of_numa(node.host_bridges[b].numa) != own) {
      return PcieParent{PcieParent::Kind::kHostBridge, static_cast<int>(b)};
    }
  }
  return std::nullopt;
}

FaultedSystem with_faults(const SystemSpec& design, const std::vector<ElementFault>& faults) {
  FaultedSystem faulty{design, {}};
  SystemSpec& system = faulty.system;
  std::vector<ElementFault> on_links;
  for (const ElementFault& f : faults) {
    if (f.kind == FaultKind::kGdrOff) {
      system.gdr_off_nodes.push_back(f.node);
    } else if (f.kind == FaultKind::kCablesSwapped) {
      swap_cables(system, f);
    } else if (f.kind == FaultKind::kNicOtherSocket) {
      move_pcie_device(system, f.node, faulted_nic(system.node, f.nic).name,
                       other_socket_slot(system.node, f.nic).value());
    } else if (f.kind == FaultKind::kFewerUplinks) {
      system.fabric.oversubscription /= f.scale;
    } else if (f.kind == FaultKind::kStaticEcmp) {
      system.fabric.routing = Routing::kEcmp;
    } else if (f.kind == FaultKind::kTopOfRack) {
      system.fabric.rails = RailMapping::kTopOfRack;
    } else if (f.kind == FaultKind::kEcmpDraw) {
      // Another seed of the same hash: each flow's path drawn anew, independently of the design's.
      system.fabric.ecmp_seed =
          sim::hash_mix(design.fabric.ecmp_seed, static_cast<std::uint64_t>(f.draw));
    } else {
      on_links.push_back(f);
    }
  }
  if (!on_links.empty()) {
    faulty.prepare = [on_links](System& built, sim::FlowNetwork& network) {
      for (const ElementFault& f : on_links) {
        if (f.kind != FaultKind::kSwitchCable && !built.built(f.node)) {
          continue;  // on a node the measurement does not run on (only its own are built)
        }
        apply_to_links(f, built, network);
      }
    };
  }
  return faulty;
}

std::vector<std::string> fault_entries(const ElementFault& f, const SystemSpec& system) {
  if (f.kind == FaultKind::kGdrOff) {
    return {fmt::format(R"({{"gdr_off_node": {}}})", f.node)};
  }
  if (f.kind == FaultKind::kNicOtherSocket) {
    return {fmt::format(R"({{"pcie": "n{}.{}", "parent": "{}"}})", f.node,
                        faulted_nic(system.node, f.nic).name,
                        pcie_parent_name(other_socket_slot(system.node, f.nic).value()))};
  }
  if (f.kind == FaultKind::kCablesSwapped || f.kind == FaultKind::kFewerUplinks ||
      f.kind == FaultKind::kStaticEcmp || f.kind == FaultKind::kEcmpDraw ||
      f.kind == FaultKind::kTopOfRack) {
    return {};
  }
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const System built(system, network);
  std::vector<std::string> entries;
  for (const std::string& link : fault_links(built, network, f)) {
    entries.push_back(
        f.kind == FaultKind::kNicDown
            ? fmt::format(R"({{"link": "{}", "down": true}})", link)
            : fmt::format(R"({{"link": "{}", "rate_scale": {:.3f}}})", link, f.scale));
  }
  return entries;
}

}  // namespace railsim::models
