// File: models/system/fabric_bisection.hpp
// Bisection bandwidth of a rail-optimised leaf/spine fabric, two tiers or three, in closed form:
// the shapes it depends on, each derivation, and a worked example. FabricSummary
// (fabric_summary.hpp) quotes it for a System.
#pragma once

#include "sim/bandwidth.hpp"

namespace railsim::models {

// One rail of a two-tier rail-optimised fabric, reduced to what its bisection depends on.
struct LeafSpineShape {
  int nodes = 0;             // N, >= 0
  int nodes_per_leaf = 0;    // s, the scalable unit, >= 1
  int uplinks_per_leaf = 0;  // k, >= 0
  sim::Bandwidth node_port;  // p: one NIC port, per direction
  sim::Bandwidth uplink;     // f: one leaf-spine cable, per direction
};

// Bisection bandwidth of one rail. Definition: split the N nodes into two halves of floor(N/2)
// and ceil(N/2) nodes, put every switch on either side, and count the capacity, in one
// direction, of the fabric links (NIC ports, leaf-spine cables) that cross from one side to
// the other; the bisection bandwidth is the least such total. A node is never cut: the links
// inside it are not fabric links.
//
// A system's bisection is rails x this. Rail r's links (NIC r of every node, the leaves of
// rail r and their uplinks) are disjoint from every other rail's, and every rail is the same
// graph whatever the cabling (each node has one NIC on each rail), so with the nodes and the
// spines placed, each rail's cut is least on its own and all rails' least cuts are equal.
//
// Within one rail, leaf u holds n_u nodes (s each, the last unit perhaps fewer) and k uplinks.
// 1. The spines go all to one side. For fixed nodes and leaves the cut (over all rails) is
//    linear in the uplinks K per leaf that end on side A, so its least value over 0 <= K <= k
//    lies at K = 0 or K = k, both reachable (all spines on one side). Call that side A; B
//    holds h nodes, h being floor(N/2) or ceil(N/2).
// 2. Unit u with b of its nodes on B then costs g_u(b) = min(b p, (n_u - b) p + k f): its leaf
//    stays on A and cuts the b NIC ports, or joins B and cuts the other n_u - b ports and its
//    k uplinks. Each g_u is concave (a minimum of linear functions), so the least sum subject
//    to sum b_u = h lies at a vertex of that polytope: every unit wholly on one side but one.
// 3. Closed form for full units (N = U s), with h = q s + r and 0 <= r < s:
//        B_rail = q min(s p, k f) + min(r p, (s - r) p + k f)
//    - one unit, full or not (N <= s, the leaf holds every node): B_rail = g(floor(N/2)) =
//      floor(N/2) p, the cut goes through the NIC ports, and the uplinks do not matter;
//    - an even number of units: B_rail = (U/2) min(s p, k f), i.e. N/2 x p at 1:1 and half the
//      rail's uplink capacity when the leaves are oversubscribed;
//    - an odd number, 1:1: q s p + r p = floor(N/2) p, full bisection again; oversubscribed,
//      the half-unit r pays the cheaper of its ports and its leaf's uplinks.
//    A partial last unit is handled by evaluating every vertex of step 2: O(units). The tests
//    check all of this against a search over every cut of small fabrics.
// Example: 128 DGX H100 (8 rails, 400G NDR, 4096 B MTU: p = f = 49.68 GB/s) with 32 nodes per
// leaf and 16 uplinks (2:1): h = 64 = 2 units, B_rail = 2 x 16 f = 1589.9 GB/s, system 12.7 TB/s.
sim::Bandwidth rail_bisection(const LeafSpineShape& shape);

// A three-tier rail-optimised fabric, all rails, reduced to what its bisection depends on. Pod q
// holds units q P .. q P + P - 1 (the last pod perhaps fewer) and S spines; every leaf has k = a S
// uplinks, a to each spine of its pod; every spine c uplinks to the cores, however full its pod.
struct ThreeTierShape {
  int nodes = 0;                // N, >= 1
  int nodes_per_leaf = 0;       // s, the scalable unit, >= 1
  int units_per_pod = 0;        // P, >= 1
  int rails = 0;                // R, >= 1
  int uplinks_per_leaf = 0;     // k, a multiple of S
  int spines_per_pod = 0;       // S, >= 1
  int uplinks_per_spine = 0;    // c, >= 0
  sim::Bandwidth node_port;     // p: one NIC port, per direction
  sim::Bandwidth leaf_uplink;   // f: one leaf-spine cable, per direction
  sim::Bandwidth spine_uplink;  // g: one spine-core cable, per direction
};

// Bisection bandwidth of a three-tier fabric, as defined for rail_bisection (the spine-core
// cables count as fabric links too), over all rails at once: a pod's spines serve every rail.
// 1. The cores go all to one side, A. For a fixed placement of everything else, a core on B
//    cuts its cables to spines on A and one on A its cables to spines on B; every core has the
//    same number of cables to every spine (each spine spreads its c uplinks alike), so every
//    core prefers the same side.
// 2. Within a pod the spines go all to one side: with the leaves placed, each spine cuts a
//    cables to each leaf on the other side plus, on B, its c g, the same for every spine. So a
//    pod costs the cheaper of its spines on A, sum_u R gA(n_u, b_u) with
//    gA(n, b) = min(b p, (n - b) p + k f) (rail_bisection's unit cost), and its spines on B,
//    Z + sum_u R gA(n_u, n_u - b_u) with Z = S c g.
// 3. As in rail_bisection the cut is concave in (b_u), so every unit lies wholly on one side but
//    one; and a pod's cost is concave in the count t of its whole units on B, so every pod but
//    one has none or all of them there. Identical pods with T whole units on B then hold them
//    as floor(T / P) pods wholly on B and one with the remainder.
// 4. Closed form for full pods (N = Q P s) at 1:1 (s p = k f): h = j P s + t s + r costs
//    j min(P R s p, Z) plus the partial pod; with Z >= P R s p (no core oversubscription) that
//    is floor(N/2) R p, full bisection. At core oversubscription o (Z = P R s p / o) and an even
//    number of pods, (Q / 2) Z: the halves meet over half the core uplinks.
// The evaluation enumerates the split unit (none, in a full pod, in the last pod, the last
// pod's partial unit), the last pod's whole units on B and the split pod's, the rest by step 3:
// O(P^2) whatever the size. The tests check it against a search over every cut of small
// fabrics.
// Example: 16 DGX H100 (p = f = g = 49.68 GB/s), 4 nodes per leaf, 2 units per pod, 4 spines
// with one cable from each leaf, 8 uplinks per spine (2:1 at the core): halves of one pod each
// cut that pod's 4 x 8 core uplinks, 32 g = 1589.9 GB/s, against 64 p for its NIC ports.
sim::Bandwidth three_tier_bisection(const ThreeTierShape& shape);

}  // namespace railsim::models
