// File: tests/models/system/fabric_planes_test.cpp
// A fabric split into planes (fabric_spec.hpp): each group of consecutive rails its own fat tree
// sharing no switch with another. Which spines and cores a plane's leaves reach, routes that stay
// in their plane and the one that cannot leave it, the misaligned and explicit cablings kept in
// their planes, the summary's counts and bisection, and DeepSeek-V3's multi-plane fat tree
// (Zhao et al., "Insights into DeepSeek-V3", ISCA 2025, arXiv 2505.09343: eight planes of two
// tiers of 64-port 400G InfiniBand switches, 16,384 GPUs on 768 switches). Every expected figure
// is derived by hand in the comments.
#include "tests/input_error_text.hpp"

#include "models/fabric/fabric_presets.hpp"
#include "models/fabric/switch_radix.hpp"
#include "models/hardware/node_presets.hpp"
#include "models/system/fabric_summary.hpp"
#include "models/system/system.hpp"
#include "sim/simulator.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace railsim::models {
namespace {

// 16 DGX H100 (8 rails), 4 nodes per leaf: 4 units, 32 leaves (leaf r x 4 + u); two planes of
// rails 0-3 and 4-7. At 1:1 a leaf has 4 uplinks.
SystemSpec two_planes(int tiers) {
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = 16;
  spec.fabric.tiers = tiers;
  spec.fabric.planes = 2;
  spec.fabric.nodes_per_leaf = 4;
  spec.fabric.spines = 2;
  if (tiers == 3) {
    spec.fabric.units_per_pod = 2;
    spec.fabric.spines = 4;
    spec.fabric.cores = 4;
  }
  return spec;
}

// The switch a link name's end names: "leaf3>spine1.2" has lower end "leaf3", upper "spine1".
struct Cable {
  std::string lower_kind;
  int lower = 0;
  std::string upper_kind;
  int upper = 0;
};

// The cables from a lower to an upper switch ("leaf3>spine1.2", "spine5>core6.1").
std::vector<Cable> upward_cables(const sim::FlowNetwork& net) {
  std::vector<Cable> out;
  for (std::uint32_t l = 0; l < net.link_count(); ++l) {
    const std::string name(net.link(sim::LinkId{l}).name);
    const auto arrow = name.find('>');
    const auto kind_end = [&](std::size_t from) { return name.find_first_of("0123456789", from); };
    const std::string lower_kind = name.substr(0, kind_end(0));
    const std::string upper_kind = name.substr(arrow + 1, kind_end(arrow) - arrow - 1);
    const bool up = (lower_kind == "leaf" && upper_kind == "spine") ||
                    (lower_kind == "spine" && upper_kind == "core");
    if (arrow == std::string::npos || !up) {
      continue;
    }
    out.push_back({lower_kind, std::stoi(name.substr(kind_end(0))), upper_kind,
                   std::stoi(name.substr(kind_end(arrow)))});
  }
  return out;
}

TEST(FabricPlanes, ALeafReachesOnlyTheSpinesOfItsPlane) {
  // Two tiers, 2 spines per plane: spines 0-1 for rails 0-3 (leaves 0-15), 2-3 for rails 4-7
  // (leaves 16-31); each leaf's 4 uplinks go 2 to each spine of its plane, so a spine has
  // 16 leaves x 2 = 32 downlinks.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(two_planes(2), net);
  std::vector<int> downlinks(4, 0);
  for (const Cable& c : upward_cables(net)) {
    ASSERT_EQ(c.lower_kind, "leaf");
    EXPECT_EQ(c.upper / 2, c.lower / 16) << "leaf" << c.lower << " to spine" << c.upper;
    ++downlinks.at(static_cast<std::size_t>(c.upper));
  }
  EXPECT_EQ(downlinks, (std::vector<int>{32, 32, 32, 32}));
  const FabricSummary s = summarize(system, net);
  EXPECT_EQ(s.planes, 2);
  EXPECT_EQ(s.rails_per_plane, 4);
  EXPECT_EQ(s.spines, 4);
  EXPECT_EQ(s.leaf_spine_links, 2 * 32 * 4);
  // Each rail is cut least by its own NIC ports at 1:1: 8 nodes x 8 rails x one port.
  EXPECT_DOUBLE_EQ(s.bisection.bytes_per_s, 64 * s.node_port_rate.bytes_per_s);
}

TEST(FabricPlanes, ASpineClimbsOnlyToTheCoresOfItsPlane) {
  // Three tiers: pods of 2 units (nodes 0-7, 8-15), 4 spines per pod and plane, so spines 0-7
  // are plane 0's (pod 0: 0-3, pod 1: 4-7) and 8-15 plane 1's; 4 cores per plane (0-3, 4-7).
  // A spine has 4 rails x 2 units x 1 = 8 downlinks and, at 1:1, 8 uplinks: 2 to each core of
  // its plane.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(two_planes(3), net);
  std::vector<int> core_cables(8, 0);
  for (const Cable& c : upward_cables(net)) {
    if (c.lower_kind == "leaf") {
      const int plane = c.lower / 16;
      const int pod = c.lower % 4 / 2;
      EXPECT_EQ(c.upper / 4, plane * 2 + pod) << "leaf" << c.lower << " to spine" << c.upper;
    } else {
      EXPECT_EQ(c.upper / 4, c.lower / 8) << "spine" << c.lower << " to core" << c.upper;
      ++core_cables.at(static_cast<std::size_t>(c.upper));
    }
  }
  // 8 spines of a plane x 8 uplinks over its 4 cores: 16 cables each.
  EXPECT_EQ(core_cables, std::vector<int>(8, 16));
  const FabricSummary s = summarize(system, net);
  EXPECT_EQ(s.spines, 16);
  EXPECT_EQ(s.cores, 8);
  EXPECT_EQ(s.cores_per_plane, 4);
  EXPECT_EQ(s.downlinks_per_spine, 8);
  EXPECT_EQ(s.uplinks_per_spine, 8);
  // 1:1 at both tiers: full bisection, half the nodes' ports of every rail.
  EXPECT_DOUBLE_EQ(s.bisection.bytes_per_s, 8 * 8 * s.node_port_rate.bytes_per_s);
}

TEST(FabricPlanes, RoutesStayInTheirPlaneAndCannotLeaveIt) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(two_planes(3), net);
  for (int nic = 0; nic < 8; ++nic) {
    // Node 0 to node 8: pod 0 to pod 1, over a core of NIC's plane.
    for (const sim::LinkId l : system.route({0, nic, nic}, {8, nic, nic})) {
      const std::string name(net.link(l).name);
      if (system.is_core_link(l) && name.rfind("spine", 0) == 0) {
        const int core = std::stoi(name.substr(name.find(">core") + 5));
        EXPECT_EQ(core / 4, nic / 4) << name;
      }
    }
  }
  // NIC 0 of node 0 is leaf 0 (rail 0, unit 0); NIC 4 of node 8 leaf 4 x 4 + 2 = 18.
  EXPECT_EQ(test::input_error_text([&] {
              (void)system.route({0, 0, 0}, {8, 4, 4});
            }),
            "no path from leaf0 to leaf18: they are in planes 0 and 1, which share no switch");
}

TEST(FabricPlanes, MisalignedCablingShufflesTheRailsOfEachPlaneAmongThemselves) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec = two_planes(2);
  spec.fabric.rails = RailMapping::kMisaligned;
  const System system(spec, net);
  int moved = 0;
  for (int n = 0; n < spec.nodes; ++n) {
    std::set<int> rails;
    for (int i = 0; i < 8; ++i) {
      EXPECT_EQ(system.rail_of(n, i) / 4, i / 4) << "node " << n << " NIC " << i;
      rails.insert(system.rail_of(n, i));
      moved += system.rail_of(n, i) != i ? 1 : 0;
    }
    EXPECT_EQ(rails.size(), 8U);
  }
  EXPECT_GT(moved, 0);
}

TEST(FabricPlanes, ExplicitCablingToAnotherPlaneIsRefused) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec = two_planes(2);
  spec.fabric.rails = RailMapping::kExplicit;
  spec.fabric.cabling.assign(16, {0, 1, 2, 3, 4, 5, 6, 7});
  spec.fabric.cabling[5] = {0, 1, 2, 4, 3, 5, 6, 7};
  EXPECT_EQ(test::input_error_text([&] { const System system(spec, net); }),
            "cabling: node 5 NIC 3: rail 4 is in plane 1, NIC 3's plane is 0: the planes share "
            "no switch, so NCCL's rings on NIC 3 would have no path");
}

TEST(FabricPlanes, PlanesMustDivideTheRails) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec = two_planes(2);
  spec.fabric.planes = 3;
  EXPECT_EQ(test::input_error_text([&] { const System system(spec, net); }),
            "fabric: 3 planes for 8 rails: a plane holds whole rails, so the planes must divide "
            "the rails");
}

TEST(FabricPlanes, DeepSeekV3sEightPlanesOfTwoTiersHold16384GpusOn768Switches) {
  // A plane per rail: a QM9700 leaf takes 32 nodes and 32 uplinks; 2,048 nodes are 64 units,
  // so a plane has 64 leaves and 32 spines with one cable from each (64 ports, k^2/2 = 2,048 NIC
  // ports). Eight planes: 512 leaves and 256 spines, 768 switches, as the paper counts them.
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = 2048;
  spec.fabric = fabric_preset("superpod-h100");
  spec.fabric.grows_by_radix = false;
  spec.fabric.tiers = 2;
  spec.fabric.planes = 8;
  spec.fabric.spines = 32;
  const TierPorts ports = ports_needed(spec.fabric, spec.nodes, 8);
  EXPECT_EQ(ports.leaf, 64);
  EXPECT_EQ(ports.spine, 64);
  EXPECT_EQ(switch_radix_problem(spec.fabric, spec.nodes, 8), std::nullopt);
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(spec, net);
  const FabricSummary s = summarize(system, net);
  EXPECT_EQ(s.leaves + s.spines, 768);
  EXPECT_EQ(s.nodes * s.rails, 16384);
  // In one plane the same spines would take a cable from every one of 512 leaves.
  spec.fabric.planes = 1;
  EXPECT_EQ(ports_needed(spec.fabric, spec.nodes, 8).spine, 512);
}

}  // namespace
}  // namespace railsim::models
