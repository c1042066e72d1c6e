// File: models/fabric/fabric_spec.hpp
// A rail-optimised leaf/spine fabric, two or three tiers, as parameters. Rail r is the set of
// leaves that hold compute NIC r of the nodes; each leaf serves one scalable unit
// (nodes_per_leaf nodes). A leaf has nodes_per_leaf downlink ports and
// nodes_per_leaf / oversubscription uplink ports, spread round-robin over the spines, all at
// port_rate. With three tiers the leaves of units_per_pod consecutive units (all rails) and
// `spines` spine switches of their own form a pod; each spine has (its downlinks of a full pod)
// / core_oversubscription uplinks; uplink p of the spine at position s of its pod goes to core
// (s x uplinks + p) % cores, the same core for every pod, so that the cores form
// groups when there are more of them than a spine has uplinks.
//
// Planes: the rails may be split into `planes` groups of consecutive rails, each its own fat
// tree of the shape above (`spines` per pod and `cores` per plane) sharing no switch with
// another (the multi-plane fat tree of the largest InfiniBand clusters, a plane per rail at the
// most). NCCL never mixes planes (fabric-facts §3), so aligned traffic never leaves its plane,
// and a plane of fewer rails reaches more nodes with the same switches.
#pragma once

#include "models/fabric/sharp.hpp"
#include "models/fabric/switch_model.hpp"
#include "models/hardware/node_spec.hpp"
#include "sim/bandwidth.hpp"
#include "sim/ceil_div.hpp"
#include "sim/time.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace railsim::models {

// How compute NIC i of each node is cabled to the rails.
enum class RailMapping {
  kAligned,     // NIC i on rail i: same-index GPUs of all nodes meet under one leaf
  kMisaligned,  // a per-node permutation of the NICs over the rails, drawn from rail_seed
  kExplicit,    // NodeSpec-independent table: cabling[node][nic] = rail
  // Top-of-rack: every NIC of a node on one leaf, the "rail" r of a node being its place in its
  // unit over nodes_per_leaf / rails: the same switches and ports as a rail-optimised fabric,
  // cabled by server (what rail-optimised designs are compared against). Traffic between
  // same-index NICs leaves its leaf unless both nodes share it.
  kTopOfRack,
};

enum class Routing {
  kEcmp,      // each flow hashed onto one of the equal-cost paths (RoCE fabrics, static IB)
  kAdaptive,  // a transfer spread evenly over every uplink (IB adaptive routing, packet spraying)
};

struct FabricSpec {
  int tiers = 2;                       // 2: leaf/spine; 3: pods of leaves and spines under cores
  int nodes_per_leaf = 32;             // the scalable unit; DGX SuperPOD: 32 node slots per SU
  int planes = 1;                      // fat trees the rails are split over, dividing the rails
  int spines = 4;                      // spine switches of a plane (3 tiers: per pod)
  double oversubscription = 1.0;       // leaf downlink : uplink capacity, >= 1
  int units_per_pod = 1;               // 3 tiers: scalable units per pod, >= 1
  int cores = 4;                       // 3 tiers: core switches of a plane, >= 1
  double core_oversubscription = 1.0;  // 3 tiers: spine downlink : uplink capacity, >= 1
  // Achieved / line rate of every leaf-spine cable, and of every spine-core one: calibrated
  // shares (railsim calibrate), 1 for the design as built. Below 1 they stand for what the ports
  // do not show (congestion control, buffers, a fabric run hotter than its cabling): the
  // effective oversubscription is oversubscription / uplink_efficiency.
  double uplink_efficiency = 1.0;
  double core_uplink_efficiency = 1.0;
  sim::Bandwidth port_rate = sim::gbps(400);  // data rate per port and direction, after coding
  // Every leaf, spine and core is one of these (switch_radix.hpp checks their ports); unset, a
  // switch has as many ports as the design gives it.
  std::optional<SwitchModel> switch_model;
  // Set by fabric presets: tiers, planes, spines, units_per_pod and cores are laid out for the
  // system's node count by the switch's radix when it is built (fabric_sizing.hpp), not taken as
  // given.
  bool grows_by_radix = false;
  Transport transport = Transport::kInfiniband;
  int mtu = 4096;  // bytes of payload per packet: 4096 on IB (perftest's port MTU)
  sim::Duration switch_latency = sim::ns(130);  // port to port (Quantum HDR; docs/scenarios.md)
  sim::Duration cable_latency = sim::ns(25);    // 5 m at 5 ns/m, light in fibre or copper
  RailMapping rails = RailMapping::kAligned;
  std::uint64_t rail_seed = 1;
  std::vector<std::vector<int>> cabling;  // kExplicit only: cabling[node][compute nic] = rail
  Routing routing = Routing::kEcmp;
  std::uint64_t ecmp_seed = 0;     // ECMP: one path per flow, by a hash of its identity and this
  std::optional<SharpSpec> sharp;  // unset: no switch reduces
};

// The scalable units `nodes` fill, the last perhaps in part: a rail's leaves.
inline int scalable_units(const FabricSpec& fabric, int nodes) {
  return sim::ceil_div(nodes, fabric.nodes_per_leaf);
}

// The rails of one plane: `rails` compute NICs per node over the fabric's planes.
inline int rails_per_plane(const FabricSpec& fabric, int rails) { return rails / fabric.planes; }

}  // namespace railsim::models
