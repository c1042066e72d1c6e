// File: models/fabric/fabric_sizing.cpp
#include "models/fabric/fabric_sizing.hpp"

#include "models/fabric/switch_radix.hpp"
#include "sim/ceil_div.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <vector>

namespace railsim::models {
namespace {

using sim::ceil_div;

// The divisors of n >= 1, ascending.
std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) {
      out.push_back(d);
    }
  }
  return out;
}

// `f` laid out for `nodes` nodes of `rails` compute NICs in f.planes planes; false when three
// tiers of its switch cannot join that many pods. A leaf or spine beyond its switch's ports is
// left as it is for the cabling or the radix check to name.
bool lay_out(FabricSpec& f, int nodes, int rails) {
  const int ports = ports_at(*f.switch_model, f.port_rate);
  const int uplinks = leaf_uplinks(f);
  if (uplinks < 1 || f.nodes_per_leaf + uplinks > ports) {
    return true;
  }
  const int plane_rails = rails_per_plane(f, rails);
  const int units = scalable_units(f, nodes);
  for (const int spines : divisors(uplinks)) {
    if (plane_rails * units * (uplinks / spines) <= ports) {
      f.tiers = 2;
      f.spines = spines;
      return true;
    }
  }
  // Every spine of a pod takes one cable from each leaf of the pod and sends its own uplinks.
  f.tiers = 3;
  f.spines = uplinks;
  f.units_per_pod = 1;
  const auto spine_ports = [&] { return plane_rails * f.units_per_pod + spine_uplinks(f, rails); };
  if (spine_uplinks(f, rails) < 1 || spine_ports() > ports) {
    return true;
  }
  while (spine_ports() <= ports) {
    ++f.units_per_pod;
  }
  --f.units_per_pod;
  const int pods = ceil_div(units, f.units_per_pod);
  const int cables = f.spines * spine_uplinks(f, rails);  // from a pod's spines to the cores
  for (const int cores : divisors(cables)) {
    if (pods * (cables / cores) <= ports) {
      f.cores = cores;
      return true;
    }
  }
  return false;
}

}  // namespace

FabricSpec fabric_for_nodes(const FabricSpec& fabric, int nodes, int rails) {
  if (fabric.planes < 1 || rails % fabric.planes != 0) {
    throw sim::InputError(fmt::format(
        "{} planes for {} rails: a plane holds whole rails, so the planes must divide the rails",
        fabric.planes, rails));
  }
  if (!fabric.grows_by_radix || !fabric.switch_model) {
    return fabric;
  }
  // The fewest planes whose three tiers reach the nodes, no fewer than the design's own: a plane
  // of fewer rails leaves a spine room for more units.
  FabricSpec f = fabric;
  for (const int planes : divisors(rails)) {
    if (planes % fabric.planes != 0) {
      continue;
    }
    f = fabric;
    f.planes = planes;
    if (lay_out(f, nodes, rails)) {
      return f;
    }
  }
  const int ports = ports_at(*f.switch_model, f.port_rate);
  throw sim::InputError(fmt::format(
      "{} nodes are more than three tiers of {} reach: with {} ports at {:g} Gb/s and a plane "
      "per rail ({}), a pod holds {} units of {} nodes and the cores join at most {} pods, {} "
      "nodes; name a switch with more ports, or describe the fabric by its own keys",
      nodes, f.switch_model->name, ports, f.port_rate.in_gbps(), rails, f.units_per_pod,
      f.nodes_per_leaf, ports, ports * f.units_per_pod * f.nodes_per_leaf));
}

FabricSpec built_fabric(const FabricSpec& fabric, int nodes, int rails) {
  FabricSpec f = fabric_for_nodes(fabric, nodes, rails);
  if (const auto problem = switch_radix_problem(f, nodes, rails)) {
    throw sim::InputError(*problem);
  }
  return f;
}

}  // namespace railsim::models
