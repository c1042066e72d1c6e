// File: models/hardware/nvlink_domain.cpp
#include "models/hardware/nvlink_domain.hpp"

#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace railsim::models {
namespace {

// A tray's PCIe parent in the domain: its host bridge or switch after the trays before it.
PcieParent offset(PcieParent parent, int host_bridges, int switches) {
  parent.index += parent.kind == PcieParent::Kind::kHostBridge ? host_bridges : switches;
  return parent;
}

}  // namespace

NodeSpec nvlink_domain(const NodeSpec& tray, int trays, std::string name, std::string description) {
  if (trays < 2) {
    throw sim::InputError(
        fmt::format("an NVLink domain of {} trays of {}: expected at least 2", trays, tray.name));
  }
  if (tray.trays != 1 || tray.nvlink.kind != NvlinkKind::kSwitch) {
    throw sim::InputError(fmt::format(
        "{} cannot be a tray of an NVLink domain: it {}", tray.name,
        tray.trays != 1 ? "is one already" : "has no NVLink switch for its GPUs to share"));
  }
  NodeSpec domain;
  domain.name = std::move(name);
  domain.description = std::move(description);
  domain.inter_socket = tray.inter_socket;
  domain.nvlink = tray.nvlink;
  domain.pcie_efficiency = tray.pcie_efficiency;
  domain.trays = trays;
  for (int t = 0; t < trays; ++t) {
    const auto sockets = static_cast<int>(domain.sockets.size());
    const auto numa_nodes = static_cast<int>(domain.numa_nodes.size());
    const auto host_bridges = static_cast<int>(domain.host_bridges.size());
    const auto switches = static_cast<int>(domain.switches.size());
    domain.sockets.insert(domain.sockets.end(), tray.sockets.begin(), tray.sockets.end());
    for (NumaNode numa : tray.numa_nodes) {
      numa.id += numa_nodes;
      numa.socket += sockets;
      domain.numa_nodes.push_back(std::move(numa));
    }
    for (HostBridge bridge : tray.host_bridges) {
      bridge.numa += numa_nodes;
      domain.host_bridges.push_back(bridge);
    }
    for (PcieSwitch sw : tray.switches) {
      sw.parent = offset(sw.parent, host_bridges, switches);
      domain.switches.push_back(sw);
    }
    for (Gpu gpu : tray.gpus) {
      gpu.parent = offset(gpu.parent, host_bridges, switches);
      domain.gpus.push_back(std::move(gpu));
    }
    for (Nic nic : tray.nics) {
      nic.name = fmt::format("t{}-{}", t, nic.name);
      nic.parent = offset(nic.parent, host_bridges, switches);
      domain.nics.push_back(std::move(nic));
    }
  }
  return domain;
}

int domains_for_trays(const NodeSpec& node, int count) {
  if (count % node.trays != 0) {
    throw sim::InputError(fmt::format(
        "{} trays: a {} node is an NVLink domain of {} trays, so the count must be a multiple "
        "of {}",
        count, node.name, node.trays, node.trays));
  }
  return count / node.trays;
}

std::string_view tray_device_name(std::string_view name) {
  const std::size_t dash = name.find('-');
  const bool tray = name.starts_with('t') && dash != std::string_view::npos && dash > 1 &&
                    std::all_of(name.begin() + 1, name.begin() + static_cast<std::ptrdiff_t>(dash),
                                [](char c) { return c >= '0' && c <= '9'; });
  return tray ? name.substr(dash + 1) : name;
}

}  // namespace railsim::models
