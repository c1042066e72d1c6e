// File: models/fabric/switch_radix.cpp
#include "models/fabric/switch_radix.hpp"

#include "sim/ceil_div.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace railsim::models {

using sim::ceil_div;

int leaf_uplinks(const FabricSpec& fabric) {
  return static_cast<int>(fabric.nodes_per_leaf / fabric.oversubscription);
}

int spine_downlinks(const FabricSpec& fabric, int rails) {
  return rails_per_plane(fabric, rails) * fabric.units_per_pod *
         ceil_div(leaf_uplinks(fabric), fabric.spines);
}

int spine_uplinks(const FabricSpec& fabric, int rails) {
  return static_cast<int>(spine_downlinks(fabric, rails) / fabric.core_oversubscription);
}

TierPorts ports_needed(const FabricSpec& fabric, int nodes, int rails) {
  TierPorts p;
  const int uplinks = leaf_uplinks(fabric);
  const int units = scalable_units(fabric, nodes);
  const int units_per_pod = fabric.tiers == 3 ? fabric.units_per_pod : units;
  const int per_leaf = ceil_div(uplinks, fabric.spines);  // cables from a leaf to spine 0
  p.leaf_down = fabric.nodes_per_leaf;
  p.leaf = p.leaf_down + uplinks;
  p.spine_leaves = rails_per_plane(fabric, rails) * std::min(units, units_per_pod);
  p.spine_down = p.spine_leaves * per_leaf;
  p.spine = p.spine_down;
  if (fabric.tiers == 3) {
    // A spine's uplinks are those of a full pod; a pod's spines x uplinks cables go to the
    // cores in turn (fabric_spec.hpp), the busiest core taking the rounded-up share.
    const int up = spine_uplinks(fabric, rails);
    p.spine += up;
    p.core_pods = ceil_div(units, units_per_pod);
    p.core = p.core_pods * ceil_div(fabric.spines * up, fabric.cores);
  }
  return p;
}

std::optional<std::string> switch_radix_problem(const FabricSpec& fabric, int nodes, int rails) {
  if (!fabric.switch_model) {
    return std::nullopt;
  }
  const SwitchModel& model = *fabric.switch_model;
  const int has = ports_at(model, fabric.port_rate);
  const std::string what =
      fmt::format("a {} has {} at {:g} Gb/s", model.name, has, fabric.port_rate.in_gbps());
  if (has == 0) {
    return fmt::format("ports at {:g} Gb/s, above a {}'s {:g} Gb/s", fabric.port_rate.in_gbps(),
                       model.name, model.port_rate.in_gbps());
  }
  const TierPorts p = ports_needed(fabric, nodes, rails);
  if (p.leaf > has) {
    return fmt::format(
        "each leaf needs {} ports ({} down to its nodes, {} up), {}: fewer nodes per "
        "leaf or more oversubscription",
        p.leaf, p.leaf_down, p.leaf - p.leaf_down, what);
  }
  if (p.spine > has) {
    return fmt::format(
        "each spine needs {} ports ({} down from {} leaves{}), {}: more spines, or {}", p.spine,
        p.spine_down, p.spine_leaves,
        fabric.tiers == 3 ? fmt::format(", {} up", p.spine - p.spine_down) : "", what,
        fabric.tiers == 3 ? "fewer units per pod" : "three tiers");
  }
  if (p.core > has) {
    return fmt::format("each core needs {} ports ({} from each of {} pods), {}: more cores", p.core,
                       p.core / p.core_pods, p.core_pods, what);
  }
  return std::nullopt;
}

}  // namespace railsim::models
