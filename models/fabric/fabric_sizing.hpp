// File: models/fabric/fabric_sizing.hpp
// A preset's fabric grown for a node count by its switch's radix, as a fat tree is: scalable
// units of nodes_per_leaf nodes, one leaf per rail each; two tiers while a spine can take a cable
// group from every leaf, with the fewest spines that hold them (a divisor of a leaf's uplinks, so
// that every spine has the same ports); beyond, a third tier: pods of as many units as a spine
// can serve with one cable from each of their leaves and its own uplinks (one spine per leaf
// uplink), and the fewest cores (a divisor of a pod's spine-core cables) whose ports hold a cable
// group from every pod. Cores outnumbering a spine's uplinks form groups (fabric_spec.hpp), the
// core groups of NVIDIA's InfiniBand cluster bring-up procedure. When three tiers shared by all
// rails cannot reach the nodes, the rails are split over planes (fabric_spec.hpp), the fewest
// that can: a plane of R / planes rails puts that many times more units in a pod, as the
// multi-plane fat trees of the largest InfiniBand clusters do. A design of several planes by
// itself (the twin planes of superpod-b300) keeps them, splitting further only in multiples.
// Oversubscription, leaf and core, is the fabric's own: 1:1 unless given.
#pragma once

#include "models/fabric/fabric_spec.hpp"

namespace railsim::models {

// `fabric` with tiers, planes, spines, units_per_pod and cores laid out for
// `nodes` nodes of `rails` compute NICs when it grows_by_radix (and has a switch model); else
// `fabric` as it is. A leaf beyond its switch's ports is left for switch_radix_problem to name.
// Throws sim::InputError for planes that do not divide the rails, and for a node count beyond
// three tiers of the switch with a plane per rail, naming the most nodes they reach.
FabricSpec fabric_for_nodes(const FabricSpec& fabric, int nodes, int rails);

// fabric_for_nodes, then checked against its switches: throws sim::InputError with the sizing's
// or switch_radix_problem's message, which the System prefixes with "fabric: ", the scenario
// reader places at /system/fabric and the command line at --nodes.
FabricSpec built_fabric(const FabricSpec& fabric, int nodes, int rails);

}  // namespace railsim::models
