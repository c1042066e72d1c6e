// File: models/system/system.cpp
// A System's construction (the spec checked, then node_links.cpp and fabric_cabling.cpp build
// its links) and its queries: rails, leaves, what a link is, which links are down, GDR.
#include "models/system/system.hpp"

#include "models/fabric/fabric_sizing.hpp"
#include "models/system/fabric_cabling.hpp"
#include "models/system/node_links.hpp"
#include "models/system/system_links.hpp"
#include "sim/assert.hpp"
#include "sim/ceil_div.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

namespace railsim::models {
namespace {

using sim::at;

std::vector<std::string> compute_nic_names(const NodeSpec& node) {
  std::vector<std::string> names;
  for (const int i : compute_nic_indices(node)) {
    names.push_back(node.nics[at(i)].name);
  }
  return names;
}

// A variant keeps what the collectives' layout and the rails are built on: the design's GPUs,
// NVLink and compute NICs.
void check_variant(const NodeSpec& design, int nodes, int index, const NodeSpec& variant) {
  if (index < 0 || index >= nodes) {
    throw sim::InputError(
        fmt::format("node variant {}: the system has nodes 0 to {}", index, nodes - 1));
  }
  if (variant.gpus.size() != design.gpus.size() || variant.nvlink.kind != design.nvlink.kind ||
      compute_nic_names(variant) != compute_nic_names(design)) {
    throw sim::InputError(fmt::format(
        "node {}: its variant of {} must keep the design's {} GPUs, NVLink and compute NICs ({})",
        index, design.name, design.gpus.size(), fmt::join(compute_nic_names(design), ", ")));
  }
}

}  // namespace

System::System(SystemSpec spec, sim::FlowNetwork& network, const std::function<void()>& node_built)
    : spec_(std::move(spec)), links_(std::make_unique<SystemLinks>(network)) {
  const NodeSpec& design = spec_.node;
  const FabricSpec& fabric = spec_.fabric;
  if (spec_.nodes < 1) {
    throw sim::InputError(fmt::format("nodes: {}, expected at least 1", spec_.nodes));
  }
  if (fabric.nodes_per_leaf < 1 || fabric.spines < 1 || !(fabric.oversubscription >= 1.0)) {
    throw sim::InputError(
        "fabric: expected nodes_per_leaf >= 1, spines >= 1 and oversubscription >= 1");
  }
  for (const double share : {fabric.uplink_efficiency, fabric.core_uplink_efficiency}) {
    if (!(share > 0.0 && share <= 1.0)) {
      throw sim::InputError(
          fmt::format("fabric: an uplink efficiency of {}, expected a share in (0, 1]", share));
    }
  }
  if (fabric.tiers != 2 && fabric.tiers != 3) {
    throw sim::InputError(fmt::format("fabric: {} tiers, expected 2 or 3", fabric.tiers));
  }
  if (fabric.tiers == 3 &&
      (fabric.units_per_pod < 1 || fabric.cores < 1 || !(fabric.core_oversubscription >= 1.0))) {
    throw sim::InputError(
        "fabric: three tiers expect units_per_pod >= 1, cores >= 1 and core_oversubscription >= 1");
  }
  compute_nics_ = compute_nic_indices(design);
  if (compute_nics_.empty()) {
    throw sim::InputError("node '" + design.name + "' has no compute NIC");
  }
  for (const auto& [n, variant] : spec_.node_variants) {
    check_variant(design, spec_.nodes, n, variant);
  }
  if (spec_.ib_hca) {
    check_ib_hca(*spec_.ib_hca, design);
  }
  SystemLinks& m = *links_;
  m.built.assign(at(spec_.nodes), spec_.built_nodes.empty());
  for (const int n : spec_.built_nodes) {
    if (n < 0 || n >= spec_.nodes) {
      throw sim::InputError(
          fmt::format("built node {}: the system has nodes 0 to {}", n, spec_.nodes - 1));
    }
    m.built[at(n)] = true;
  }
  m.rails = static_cast<int>(compute_nics_.size());
  try {
    spec_.fabric = built_fabric(fabric, spec_.nodes, m.rails);
  } catch (const sim::InputError& e) {
    throw sim::InputError(std::string("fabric: ") + e.what());
  }
  m.planes = fabric.planes;
  m.units = scalable_units(fabric, spec_.nodes);
  m.units_per_pod = fabric.tiers == 3 ? fabric.units_per_pod : m.units;
  m.pods = sim::ceil_div(m.units, m.units_per_pod);
  m.rail = cable_rails(spec_, m.rails);

  for (int n = 0; n < spec_.nodes; ++n) {
    m.nodes.push_back(m.built[at(n)] ? build_node_links(m, n, node_spec(n)) : NodeLinks{});
    if (node_built) {
      node_built();
    }
  }
  wire_fabric(*this, m);
  m.down_links.assign(m.roles.size(), false);
  m.fabric.compute_hops(leaf_count(), m.down_links);
}

System::~System() = default;

const NodeSpec& System::node_spec(int node) const {
  const auto variant = spec_.node_variants.find(node);
  return variant == spec_.node_variants.end() ? spec_.node : variant->second;
}

bool System::built(int node) const { return links_->built.at(at(node)); }

int System::rail_of(int node, int compute_nic) const {
  return links_->rail.at(at(node)).at(at(compute_nic));
}

int System::leaf_of(int node, int compute_nic) const {
  return rail_of(node, compute_nic) * links_->units + node / spec_.fabric.nodes_per_leaf;
}

int System::leaf_count() const { return links_->rails * links_->units; }

bool System::is_spine_link(sim::LinkId link) const {
  return links_->has_role(link, LinkRole::kLeafSpine);
}

bool System::is_core_link(sim::LinkId link) const {
  return links_->has_role(link, LinkRole::kSpineCore);
}

bool System::is_host_memory_link(sim::LinkId link) const {
  return links_->has_role(link, LinkRole::kMemory);
}

bool System::is_node_port_link(sim::LinkId link) const {
  return links_->has_role(link, LinkRole::kNodePort);
}

std::pair<sim::LinkId, sim::LinkId> System::cable_of(sim::LinkId link) const {
  RAILSIM_ASSERT(is_spine_link(link) || is_core_link(link) || is_node_port_link(link),
                 "only fabric links are cables");
  const Attachment& cable = links_->cables.at(link.index);
  return {cable.up, cable.down};
}

void System::set_link_down(sim::LinkId link) {
  SystemLinks& m = *links_;
  if (!is_spine_link(link) && !is_core_link(link) && !is_node_port_link(link)) {
    throw sim::InputError(fmt::format(
        "link {} is not a fabric link; only NIC ports and cables between switches go down",
        m.net.link(link).name));
  }
  m.down_links[link.index] = true;
  m.fabric.compute_hops(leaf_count(), m.down_links);
}

bool System::is_link_down(sim::LinkId link) const {
  return link.index < links_->down_links.size() && links_->down_links[link.index];
}

bool System::nic_port_up(int node, int compute_nic) const {
  const auto& port = links_->links_of(node).ports.at(at(compute_nic));
  return !is_link_down(port.up) && !is_link_down(port.down);
}

bool System::nccl_may_use(int compute_nic) const {
  return !spec_.ib_hca ||
         ib_hca_allows(*spec_.ib_hca, spec_.node.nics.at(at(compute_nics_.at(at(compute_nic)))));
}

int System::nearest_compute_nic(int node, int gpu) const {
  int best = 0;
  PathClass best_class = PathClass::kSys;
  for (std::size_t i = 0; i < compute_nics_.size(); ++i) {
    const PathClass c = pcie_path_class(node_spec(node), {DeviceRef::Kind::kGpu, gpu},
                                        {DeviceRef::Kind::kNic, compute_nics_[i]});
    if (c < best_class) {
      best = static_cast<int>(i);
      best_class = c;
    }
  }
  return best;
}

bool System::uses_gdr(int node, int gpu, int compute_nic) const {
  const int nic = compute_nics_.at(at(compute_nic));
  const NodeSpec& spec = node_spec(node);
  if (!spec.nics[at(nic)].gdr_capable ||
      std::find(spec_.gdr_off_nodes.begin(), spec_.gdr_off_nodes.end(), node) !=
          spec_.gdr_off_nodes.end()) {
    return false;
  }
  const PathClass distance =
      pcie_path_class(spec, {DeviceRef::Kind::kGpu, gpu}, {DeviceRef::Kind::kNic, nic});
  return distance <= spec_.gdr_level;
}

}  // namespace railsim::models
