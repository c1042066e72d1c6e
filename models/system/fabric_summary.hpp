// File: models/system/fabric_summary.hpp
// FabricSummary: the figures a designer quotes for a System's leaf/spine fabric, two tiers or
// three (switch and cable counts, port rates, leaf and spine oversubscription, bisection
// bandwidth by fabric_bisection.hpp) and the links that a fault left off their designed rate.
// `railsim topo` prints it.
#pragma once

#include "models/system/fabric_bisection.hpp"
#include "models/system/system.hpp"
#include "sim/bandwidth.hpp"
#include "sim/flow_network.hpp"

#include <string>
#include <vector>

namespace railsim::models {

// A link whose capacity in the network differs from what the System built (a fault).
struct DegradedLink {
  std::string name;
  sim::Bandwidth capacity;  // as the network has it now
  sim::Bandwidth designed;  // as the System built it
};

// Every rate is per direction, as payload (after the wire efficiency), unless named "line".
// Per-leaf figures are those of a full leaf (nodes_per_leaf nodes), per-spine figures those of a
// spine of a full pod, as the switches are designed. The fields marked "3 tiers" stay zero (or
// empty) for a two-tier fabric.
struct FabricSummary {
  int tiers = 2;
  int nodes = 0;
  int rails = 0;                      // compute NICs per node
  int nodes_per_leaf = 0;             // the scalable unit
  int scalable_units = 0;             // ceil(nodes / nodes_per_leaf): leaves per rail
  int leaves = 0;                     // rails x scalable_units
  int units_per_pod = 0;              // 3 tiers
  int pods = 0;                       // 3 tiers: ceil(scalable_units / units_per_pod)
  int planes = 1;                     // fat trees sharing no switch (fabric_spec.hpp)
  int rails_per_plane = 0;            // rails / planes
  int spines_per_pod = 0;             // 3 tiers: of one plane
  int spines = 0;                     // in all: planes x spines of a plane (3 tiers: of its pods)
  int cores_per_plane = 0;            // 3 tiers
  int cores = 0;                      // 3 tiers: planes x cores_per_plane
  int uplinks_per_leaf = 0;           // as built: floor(nodes_per_leaf / oversubscription)
  std::vector<int> uplinks_to_spine;  // per spine of its pod, from each leaf (round-robin)
  int downlinks_per_spine = 0;  // 3 tiers: rails_per_plane x units_per_pod x a leaf's cables to it
  int uplinks_per_spine = 0;    // 3 tiers: floor(downlinks_per_spine / core_oversubscription)
  // 3 tiers: from spine 0 to each core it reaches, cores 0 on (round-robin); with more cores
  // than a spine has uplinks, those of its core group.
  std::vector<int> uplinks_to_core;
  sim::Bandwidth line_rate;                      // the fabric's port rate, before headers
  sim::Bandwidth nic_line_rate;                  // the fastest compute NIC's, before headers
  double wire_efficiency = 0.0;                  // payload share at the fabric's transport and MTU
  sim::Bandwidth node_port_rate;                 // one NIC port: min(NIC, fabric) line rate x wire
  sim::Bandwidth port_rate;                      // one leaf-spine cable: line rate x wire
  sim::Bandwidth leaf_downlink;                  // nodes_per_leaf x node_port_rate
  sim::Bandwidth leaf_uplink;                    // uplinks_per_leaf x port_rate
  double oversubscription = 0.0;                 // leaf_downlink / leaf_uplink, as the ports imply
  double requested_oversubscription = 0.0;       // the spec's ratio, before rounding to ports
  sim::Bandwidth core_port_rate;                 // 3 tiers: one spine-core cable: line rate x wire
  sim::Bandwidth spine_downlink;                 // 3 tiers: downlinks_per_spine x port_rate
  sim::Bandwidth spine_uplink;                   // 3 tiers: uplinks_per_spine x core_port_rate
  double core_oversubscription = 0.0;            // 3 tiers: spine_downlink / spine_uplink
  double requested_core_oversubscription = 0.0;  // 3 tiers: the spec's ratio
  sim::Bandwidth bisection;  // rails x rail_bisection, or planes x a plane's three_tier_bisection

  // Links as the flow network has them, one per direction.
  int node_port_links = 0;   // NIC to leaf and leaf to NIC: 2 x nodes x rails
  int leaf_spine_links = 0;  // 2 x leaves x uplinks_per_leaf
  int spine_core_links = 0;  // 3 tiers: 2 x spines x uplinks_per_spine
  int node_links = 0;        // inside the nodes: PCIe, host memory, socket links
  int total_links = 0;

  std::vector<DegradedLink> degraded;  // in link order
};

// The summary of `system` as built into `network`, which must hold the System's links and no
// others (faults may have changed their capacities since). The designed rates come from a
// second, fault-free build of the same spec, so they are the rates the System gives its links,
// never re-derived here. Cost: one more build of the System, O(links + leaves x switches).
FabricSummary summarize(const System& system, const sim::FlowNetwork& network);

}  // namespace railsim::models
