// File: models/system/node_links.cpp
// A node's PCIe, host-memory, socket and NVLink links, and the PCIe elements' names and slots
// that faults and what-ifs refer to (pcie_link_names, move_pcie_device in system.hpp).
#include "models/system/node_links.hpp"

#include "models/hardware/pcie.hpp"
#include "models/system/system.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

namespace railsim::models {
namespace {

using sim::at;

std::string parent_name(int node, const PcieParent& parent) {
  return fmt::format("n{}.{}", node, pcie_parent_name(parent));
}

// Where a node's GPU ("gpu3"), NIC (by name) or, with `switches`, PCIe switch ("sw2") hangs:
// its parent, to read or to change; null for an element the node does not have.
template <class Node>
auto parent_of(Node& node, std::string_view element, bool switches)
    -> decltype(&node.gpus[0].parent) {
  for (std::size_t g = 0; g < node.gpus.size(); ++g) {
    if (element == fmt::format("gpu{}", g)) {
      return &node.gpus[g].parent;
    }
  }
  for (auto& nic : node.nics) {
    if (element == nic.name) {
      return &nic.parent;
    }
  }
  for (std::size_t s = 0; switches && s < node.switches.size(); ++s) {
    if (element == fmt::format("sw{}", s)) {
      return &node.switches[s].parent;
    }
  }
  return nullptr;
}

}  // namespace

std::pair<std::string, std::string> pcie_link_names(const NodeSpec& node,
                                                    int node_index,
                                                    std::string_view element) {
  const PcieParent* parent = parent_of(node, element, true);
  if (!parent) {
    throw sim::InputError(fmt::format(
        "node {} of {} has no PCIe element '{}' (expected gpuN, swN or a NIC such as {})",
        node_index, node.name, element, node.nics.empty() ? "mlx5_0" : node.nics.front().name));
  }
  const std::string child = fmt::format("n{}.{}", node_index, element);
  const std::string above = parent_name(node_index, *parent);
  return {child + ">" + above, above + ">" + child};
}

void move_pcie_device(SystemSpec& spec, int node, std::string_view element, PcieParent parent) {
  if (node < 0 || node >= spec.nodes) {
    throw sim::InputError(
        fmt::format("node {}: the system has nodes 0 to {}", node, spec.nodes - 1));
  }
  const auto variant = spec.node_variants.find(node);
  NodeSpec moved = variant == spec.node_variants.end() ? spec.node : variant->second;
  const std::size_t parents = parent.kind == PcieParent::Kind::kHostBridge
                                  ? moved.host_bridges.size()
                                  : moved.switches.size();
  if (parent.index < 0 || at(parent.index) >= parents) {
    throw sim::InputError(
        fmt::format("node {} of {} has no {}", node, moved.name, parent_name(node, parent)));
  }
  PcieParent* slot = parent_of(moved, element, false);
  if (!slot) {
    throw sim::InputError(fmt::format(
        "node {} of {} has no GPU or NIC '{}' (expected gpuN or a NIC such as {})", node,
        moved.name, element, moved.nics.empty() ? "mlx5_0" : moved.nics.front().name));
  }
  *slot = parent;
  spec.node_variants[node] = std::move(moved);
}

NodeLinks build_node_links(SystemLinks& links, int n, const NodeSpec& node) {
  NodeLinks node_links;
  for (std::size_t s = 0; s < node.switches.size(); ++s) {
    const PcieSwitch& sw = node.switches[s];
    node_links.switches.push_back(
        links.attach(pcie_effective_bandwidth(sw.uplink, node.pcie_efficiency),
                     fmt::format("n{}.sw{}", n, s), parent_name(n, sw.parent)));
  }
  for (std::size_t g = 0; g < node.gpus.size(); ++g) {
    node_links.gpus.push_back(links.attach(gpu_host_rate(node, static_cast<int>(g)),
                                           fmt::format("n{}.gpu{}", n, g),
                                           parent_name(n, node.gpus[g].parent)));
  }
  for (const Nic& nic : node.nics) {
    node_links.nics.push_back(links.attach(pcie_effective_bandwidth(nic.link, node.pcie_efficiency),
                                           fmt::format("n{}.{}", n, nic.name),
                                           parent_name(n, nic.parent)));
  }
  for (std::size_t s = 0; s < node.sockets.size(); ++s) {
    node_links.memory.push_back(links.add(node.sockets[s].memory_bandwidth, sim::Duration::zero(),
                                          fmt::format("n{}.mem{}", n, s), LinkRole::kMemory));
    for (std::size_t t = 0; t < node.sockets.size(); ++t) {
      // The sockets of one tray are linked; those of different trays share no link.
      if (s != t &&
          tray_of_socket(node, static_cast<int>(s)) == tray_of_socket(node, static_cast<int>(t))) {
        node_links.socket_links[{static_cast<int>(s), static_cast<int>(t)}] = links.add(
            node.inter_socket, sim::Duration::zero(), fmt::format("n{}.cpu{}>cpu{}", n, s, t));
      }
    }
  }
  const NvlinkDomain& nvlink = node.nvlink;
  const sim::Bandwidth nvlink_rate = nvlink.link_rate * (nvlink.links_per_gpu * nvlink.efficiency);
  if (nvlink.kind == NvlinkKind::kSwitch) {
    for (std::size_t g = 0; g < node.gpus.size(); ++g) {
      node_links.nvswitch_ports.push_back(links.attach(nvlink_rate, fmt::format("n{}.gpu{}", n, g),
                                                       fmt::format("n{}.nvswitch", n)));
    }
  }
  for (const auto& [a, b] : nvlink.kind == NvlinkKind::kBridge
                                ? nvlink.bridged_pairs
                                : std::vector<std::pair<int, int>>{}) {
    for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
      node_links.nvlink_bridges[{from, to}] = links.add(
          nvlink_rate, sim::Duration::zero(), fmt::format("n{}.gpu{}>gpu{}", n, from, to));
    }
  }
  return node_links;
}

}  // namespace railsim::models
