// File: models/fabric/switch_radix.hpp
// The ports a fabric's switches need, tier by tier, as fabric_spec.hpp cables them: a leaf its
// nodes_per_leaf downlinks and its uplinks; a spine a cable group from every leaf of its pod and
// plane (the busiest spine, uplink p going to spine p % spines) and, with three tiers, its own
// uplinks; a core a cable group from every pod (the spines' uplinks of a pod taken in turn, core
// c has every cores-th). With a switch model named, a design whose switches need more ports than
// the model has at the fabric's rate is refused.
#pragma once

#include "models/fabric/fabric_spec.hpp"

#include <optional>
#include <string>

namespace railsim::models {

struct TierPorts {
  int leaf = 0;
  int leaf_down = 0;
  int spine = 0;
  int spine_down = 0;
  int spine_leaves = 0;  // leaves cabled to the busiest spine
  int core = 0;          // 0 for two tiers
  int core_pods = 0;     // pods cabled to each core
};

// A leaf's uplinks: nodes_per_leaf / oversubscription, rounded down (0: none, an error).
int leaf_uplinks(const FabricSpec& fabric);

// With three tiers, a spine's downlinks in a full pod: a plane's rails x units_per_pod x a
// leaf's cables to it.
int spine_downlinks(const FabricSpec& fabric, int rails);

// With three tiers, a spine's uplinks: spine_downlinks / core_oversubscription, rounded down (0:
// none, an error).
int spine_uplinks(const FabricSpec& fabric, int rails);

// The ports of the busiest switch of each tier for `nodes` nodes of `rails` compute NICs (every
// plane alike).
TierPorts ports_needed(const FabricSpec& fabric, int nodes, int rails);

// When fabric.switch_model is set and the fabric's rate is above its ports' or a tier needs
// more ports than it has, what is wrong, naming the tier, the ports needed and had ("each spine
// needs 2048 ports ..."); nullopt when the switches hold the design. The System and the scenario
// reader (which names the file and the pointer) throw it.
std::optional<std::string> switch_radix_problem(const FabricSpec& fabric, int nodes, int rails);

}  // namespace railsim::models
