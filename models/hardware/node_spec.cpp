// File: models/hardware/node_spec.cpp
#include "models/hardware/node_spec.hpp"

#include <algorithm>
#include <string>

namespace railsim::models {

std::string pcie_parent_name(PcieParent parent) {
  return (parent.kind == PcieParent::Kind::kHostBridge ? "hb" : "sw") +
         std::to_string(parent.index);
}

sim::Bandwidth gpu_host_rate(const NodeSpec& node, int gpu) {
  const Gpu& g = node.gpus.at(static_cast<std::size_t>(gpu));
  return g.c2c ? *g.c2c : pcie_effective_bandwidth(g.link, node.pcie_efficiency);
}

int tray_of_socket(const NodeSpec& node, int socket) {
  const auto sockets_per_tray = static_cast<int>(node.sockets.size()) / node.trays;
  return socket / std::max(1, sockets_per_tray);
}

std::vector<int> compute_nic_indices(const NodeSpec& node) {
  std::vector<int> indices;
  for (std::size_t i = 0; i < node.nics.size(); ++i) {
    if (node.nics[i].role == NicRole::kCompute) {
      indices.push_back(static_cast<int>(i));
    }
  }
  return indices;
}

std::optional<int> compute_nic_named(const NodeSpec& node, std::string_view name) {
  const std::vector<int> indices = compute_nic_indices(node);
  const auto it = std::find_if(indices.begin(), indices.end(), [&](int i) {
    return node.nics[static_cast<std::size_t>(i)].name == name;
  });
  if (it == indices.end()) {
    return std::nullopt;
  }
  return static_cast<int>(it - indices.begin());
}

}  // namespace railsim::models
