// File: models/system/node_routes.cpp
// Routes inside a node: NVLink, the PCIe tree, the socket link and host-memory bounce buffers.
#include "models/system/node_routes.hpp"

#include "models/hardware/path_class.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

namespace railsim::models {
namespace {

using sim::at;

}  // namespace

void NodePathBuilder::gpu_to_gpu(int node, int from_gpu, int to_gpu) {
  if (from_gpu == to_gpu) {
    throw sim::InputError("route: GPU " + std::to_string(from_gpu) + " to itself");
  }
  const NodeLinks& links = m_.links_of(node);
  const NodeSpec& spec = system_.node_spec(node);
  if (nvlinks_between(spec, from_gpu, to_gpu) > 0) {
    if (spec.nvlink.kind == NvlinkKind::kSwitch) {
      path_.push_back(links.nvswitch_ports.at(at(from_gpu)).up);
      path_.push_back(links.nvswitch_ports.at(at(to_gpu)).down);
      return;
    }
    path_.push_back(links.nvlink_bridges.at({from_gpu, to_gpu}));
    return;
  }
  const Element from = gpu(node, from_gpu);
  const Element to = gpu(node, to_gpu);
  const PathClass distance =
      pcie_path_class(spec, {DeviceRef::Kind::kGpu, from_gpu}, {DeviceRef::Kind::kGpu, to_gpu});
  if (distance <= system_.spec().p2p_level) {
    pcie(node, from, to);
    return;
  }
  host_bounce(node, from, to, true);
}

void NodePathBuilder::memory_to_nic(const Endpoint& src) {
  const Element port = nic_of(src);
  if (src.gpu == kHostMemory) {
    path_.push_back(m_.nodes[at(src.node)].memory[at(socket(src.node, port))]);
    down_from_bridge(src.node, port);
    return;
  }
  if (system_.uses_gdr(src.node, src.gpu, src.nic)) {
    pcie(src.node, gpu(src.node, src.gpu), port);
    return;
  }
  host_bounce(src.node, gpu(src.node, src.gpu), port, true);
}

void NodePathBuilder::nic_to_memory(const Endpoint& dst) {
  const Element port = nic_of(dst);
  if (dst.gpu == kHostMemory) {
    up_to_bridge(dst.node, port);
    path_.push_back(m_.nodes[at(dst.node)].memory[at(socket(dst.node, port))]);
    return;
  }
  if (system_.uses_gdr(dst.node, dst.gpu, dst.nic)) {
    pcie(dst.node, port, gpu(dst.node, dst.gpu));
    return;
  }
  host_bounce(dst.node, port, gpu(dst.node, dst.gpu), false);
}

void NodePathBuilder::port(const Endpoint& end, bool up) {
  const Attachment& ports = m_.links_of(end.node).ports[at(end.nic)];
  const sim::LinkId link = up ? ports.up : ports.down;
  if (system_.is_link_down(link)) {
    throw sim::InputError(
        fmt::format("link {} is down: no transfer can use that NIC", m_.net.link(link).name));
  }
  path_.push_back(link);
}

NodePathBuilder::Element NodePathBuilder::gpu(int n, int g) const {
  return {&m_.nodes[at(n)].gpus[at(g)], system_.node_spec(n).gpus[at(g)].parent};
}

NodePathBuilder::Element NodePathBuilder::nic_of(const Endpoint& end) const {
  const int x = system_.compute_nics().at(at(end.nic));
  return {&m_.nodes[at(end.node)].nics[at(x)], system_.node_spec(end.node).nics[at(x)].parent};
}

int NodePathBuilder::socket(int n, const Element& e) const {
  const NodeSpec& node = system_.node_spec(n);
  const int bridge = host_bridge_above(node, e.parent);
  return node.numa_nodes[at(node.host_bridges[at(bridge)].numa)].socket;
}

void NodePathBuilder::pcie(int n, const Element& from, const Element& to) {
  if (const std::optional<PcieParent> common =
          lowest_common_switch(system_.node_spec(n), from.parent, to.parent)) {
    path_.push_back(from.links->up);
    climb_switches(n, from.parent, *common);
    descend_switches(n, to.parent, *common);
    path_.push_back(to.links->down);
    return;
  }
  up_to_bridge(n, from);
  cross_sockets(n, socket(n, from), socket(n, to));
  down_from_bridge(n, to);
}

// Through a bounce buffer on the socket of the sender (`from`) or of the receiver (`to`).
void NodePathBuilder::host_bounce(int n,
                                  const Element& from,
                                  const Element& to,
                                  bool staged_by_sender) {
  const int from_socket = socket(n, from);
  const int to_socket = socket(n, to);
  up_to_bridge(n, from);
  if (staged_by_sender) {
    bounce(n, from_socket);
  }
  cross_sockets(n, from_socket, to_socket);
  if (!staged_by_sender) {
    bounce(n, to_socket);
  }
  down_from_bridge(n, to);
}

void NodePathBuilder::up_to_bridge(int n, const Element& e) {
  path_.push_back(e.links->up);
  climb_switches(n, e.parent, kHostBridge);
}

void NodePathBuilder::down_from_bridge(int n, const Element& e) {
  descend_switches(n, e.parent, kHostBridge);
  path_.push_back(e.links->down);
}

void NodePathBuilder::cross_sockets(int n, int from, int to) {
  if (from == to) {
    return;
  }
  const auto& links = m_.nodes[at(n)].socket_links;
  const auto link = links.find({from, to});
  if (link == links.end()) {
    throw sim::InputError(fmt::format(
        "node {}: CPUs {} and {} are on different trays of its NVLink domain, which share no "
        "link but NVLink (a GPU's NICs all down on its tray?)",
        n, from, to));
  }
  path_.push_back(link->second);
}

void NodePathBuilder::bounce(int n, int socket_index) {
  path_.push_back(m_.nodes[at(n)].memory[at(socket_index)]);
  path_.push_back(m_.nodes[at(n)].memory[at(socket_index)]);
}

void NodePathBuilder::climb_switches(int n, PcieParent from, PcieParent until) {
  const NodeSpec& node = system_.node_spec(n);
  for (; from != until && from.kind == PcieParent::Kind::kSwitch; from = above(node, from)) {
    path_.push_back(m_.nodes[at(n)].switches[at(from.index)].up);
  }
}

void NodePathBuilder::descend_switches(int n, PcieParent to, PcieParent until) {
  // Walked up from `to`, so appended in reverse.
  const std::size_t first = path_.size();
  const NodeSpec& node = system_.node_spec(n);
  for (; to != until && to.kind == PcieParent::Kind::kSwitch; to = above(node, to)) {
    path_.push_back(m_.nodes[at(n)].switches[at(to.index)].down);
  }
  std::reverse(path_.begin() + static_cast<std::ptrdiff_t>(first), path_.end());
}

}  // namespace railsim::models
