// File: tests/models/fabric/fabric_sizing_test.cpp
// The superpod-h100 preset grown by the QM9700's radix (64 ports at 400 Gb/s) against the
// reference architecture's own switch counts for 1 to 4 scalable units
// (docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100, Network
// Fabrics) and the fat tree's closed forms beyond (../shared/docs/fabric-facts.md: two tiers
// reach k^2/2 NIC ports, three tiers k^3/4 = 65,536 for k = 64, 8,192 nodes of 8 rails).
#include "models/fabric/fabric_sizing.hpp"

#include "tests/input_error_text.hpp"

#include "models/fabric/fabric_presets.hpp"
#include "models/fabric/switch_radix.hpp"
#include "models/hardware/node_presets.hpp"
#include "models/system/system.hpp"
#include "sim/simulator.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace railsim::models {
namespace {

constexpr int kRails = 8;  // DGX H100: 8 compute NICs

FabricSpec superpod(int nodes) {
  return fabric_for_nodes(fabric_preset("superpod-h100"), nodes, kRails);
}

std::string sizing_error(int nodes) {
  return test::input_error_text([&] { (void)superpod(nodes); });
}

TEST(FabricSizing, OneToFourUnitsTakeTheReferenceArchitecturesSpines) {
  // The RA's rows: 1 SU 4 spines, 2 SUs 8, 3 SUs 16, 4 SUs 16.
  const std::vector<std::pair<int, int>> nodes_and_spines = {
      {1, 4}, {31, 4}, {32, 4}, {33, 8}, {64, 8}, {93, 16}, {127, 16}, {128, 16}};
  for (const auto& [nodes, spines] : nodes_and_spines) {
    const FabricSpec f = superpod(nodes);
    EXPECT_EQ(f.tiers, 2) << nodes << " nodes";
    EXPECT_EQ(f.spines, spines) << nodes << " nodes";
    EXPECT_EQ(f.nodes_per_leaf, 32);
    EXPECT_DOUBLE_EQ(f.oversubscription, 1.0);
    EXPECT_DOUBLE_EQ(f.port_rate.in_gbps(), 400.0);
  }
}

TEST(FabricSizing, TwoTiersLastToEightUnits) {
  // 8 units x 8 rails = 64 leaves: 32 spines, one cable from every leaf, fill 64 ports (k^2/2 =
  // 2,048 NIC ports, 256 nodes); a ninth unit's leaves do not fit a spine.
  const FabricSpec f = superpod(256);
  EXPECT_EQ(f.tiers, 2);
  EXPECT_EQ(f.spines, 32);
  EXPECT_EQ(ports_needed(f, 256, kRails).spine, 64);
  EXPECT_EQ(superpod(257).tiers, 3);
}

TEST(FabricSizing, AThirdTierTakesPodsOfFourUnitsUnderCorePlanes) {
  // A spine with a tier above splits 32 down, 32 up: pods of 32 leaves (4 units) under 32
  // spines. 9 units: 3 pods, 32 x 32 = 1,024 spine-core cables each; the fewest cores (a divisor
  // of 1,024) with at most 64 ports: 3 x 1,024 / C <= 64 gives C = 64, 16 cables from each pod.
  const FabricSpec nine = superpod(257);
  EXPECT_EQ(nine.spines, 32);
  EXPECT_EQ(nine.units_per_pod, 4);
  EXPECT_EQ(nine.cores, 64);
  const TierPorts p = ports_needed(nine, 257, kRails);
  EXPECT_EQ(p.spine, 64);
  EXPECT_EQ(p.core_pods, 3);
  EXPECT_EQ(p.core, 48);
  // The full fat tree: 64 pods, 1,024 cores with one cable from each: 65,536 NIC ports.
  const FabricSpec full = superpod(8192);
  EXPECT_EQ(full.units_per_pod, 4);
  EXPECT_EQ(full.cores, 1024);
  EXPECT_EQ(ports_needed(full, 8192, kRails).core, 64);
}

TEST(FabricSizing, ThreeTiersTakeTheB200ReferenceArchitecturesSpinesAndCores) {
  // The DGX SuperPOD B200 RA (Architecture, the table of larger SuperPODs) builds the same
  // fabric: 32-node SUs of 8 rails on 64-port 400G switches, every cable count equal to the
  // node-leaf count. Its rows: 2, 4 and 8 SUs on 16, 32 and 64 leaves under 8, 16 and 32 spines;
  // 16, 32 and 64 SUs on 128, 256 and 512 leaves, as many spines, and 64, 128 and 256 cores
  // (docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200).
  const std::vector<std::tuple<int, int, int, int>> units_leaves_spines_cores = {
      {2, 16, 8, 0},      {4, 32, 16, 0},      {8, 64, 32, 0},
      {16, 128, 128, 64}, {32, 256, 256, 128}, {64, 512, 512, 256}};
  for (const auto& [units, leaves, spines, cores] : units_leaves_spines_cores) {
    const int nodes = 32 * units;
    const FabricSpec f = superpod(nodes);
    EXPECT_EQ(f.tiers, cores == 0 ? 2 : 3) << nodes << " nodes";
    EXPECT_EQ(kRails * units, leaves);
    if (cores == 0) {
      EXPECT_EQ(f.spines, spines) << nodes << " nodes";
    } else {
      EXPECT_EQ(f.spines * (units / f.units_per_pod), spines) << nodes << " nodes";
      EXPECT_EQ(f.cores, cores) << nodes << " nodes";
    }
  }
}

TEST(FabricSizing, BeyondThreeSharedTiersTheRailsSplitIntoTheFewestPlanesThatReach) {
  // A plane of R rails puts 32 / R units in a pod (a spine's 32 downlinks, one per leaf) and the
  // cores join 64 pods: 64 x 32 / R x 32 nodes, 8,192 for R = 8, 16,384 for 4 (two planes),
  // 32,768 for 2 (four), 65,536 for 1 (eight, a plane per rail).
  const std::vector<std::pair<int, int>> nodes_and_planes = {
      {8192, 1}, {8193, 2}, {16384, 2}, {16385, 4}, {32768, 4}, {32769, 8}, {65536, 8}};
  for (const auto& [nodes, planes] : nodes_and_planes) {
    const FabricSpec f = superpod(nodes);
    EXPECT_EQ(f.planes, planes) << nodes << " nodes";
    EXPECT_EQ(f.tiers, 3) << nodes << " nodes";
    EXPECT_EQ(f.units_per_pod, 32 / (kRails / planes)) << nodes << " nodes";
    EXPECT_EQ(switch_radix_problem(f, nodes, kRails), std::nullopt) << nodes << " nodes";
  }
  // 16,384 nodes (131,072 GPUs): 512 units in 64 pods of 8; a pod's 32 spines x 32 uplinks =
  // 1,024 cables, one to each of 1,024 cores per plane.
  const FabricSpec f = superpod(16384);
  EXPECT_EQ(f.spines, 32);
  EXPECT_EQ(f.cores, 1024);
  EXPECT_EQ(ports_needed(f, 16384, kRails).core, 64);
}

TEST(FabricSizing, BeyondAPlanePerRailIsRefusedNamingTheirReach) {
  EXPECT_EQ(sizing_error(65536), "");
  EXPECT_EQ(sizing_error(65537),
            "65537 nodes are more than three tiers of QM9700 reach: with 64 ports at 400 Gb/s and "
            "a plane per rail (8), a pod holds 32 units of 32 nodes and the cores join at most 64 "
            "pods, 65536 nodes; name a switch with more ports, or describe the fabric by its own "
            "keys");
}

TEST(FabricSizing, PlanesThatDoNotDivideTheRailsAreRefused) {
  FabricSpec f = fabric_preset("superpod-h100");
  f.planes = 3;
  EXPECT_EQ(test::input_error_text([&] { (void)fabric_for_nodes(f, 64, kRails); }),
            "3 planes for 8 rails: a plane holds whole rails, so the planes must divide the "
            "rails");
}

TEST(FabricSizing, AFabricLaidOutByHandIsLeftAsItIs) {
  FabricSpec f = fabric_preset("superpod-h100");
  f.grows_by_radix = false;
  f.spines = 16;
  EXPECT_EQ(fabric_for_nodes(f, 4096, kRails).spines, 16);
  EXPECT_EQ(fabric_for_nodes(f, 4096, kRails).tiers, 2);
}

TEST(FabricSizing, ASpineAtEachPositionOfEveryPodReachesTheSameCorePlane) {
  // 1,024 nodes: 32 units, 8 pods of 4; 8 x 1,024 / C <= 64 gives 128 cores, so a spine's 32
  // uplinks reach a plane of 32 cores: the spine at position s of any pod cores 32s % 128 on.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = 1024;
  spec.fabric = fabric_preset("superpod-h100");
  const System system(spec, net);
  EXPECT_EQ(system.spec().fabric.tiers, 3);
  EXPECT_EQ(system.spec().fabric.cores, 128);
  std::vector<int> core_ports(128, 0);
  std::vector<bool> plane_ok(128, true);
  for (std::uint32_t l = 0; l < net.link_count(); ++l) {
    // "spine33>core32.0": uplink 0 of spine 33, to core 32.
    const std::string name(net.link(sim::LinkId{l}).name);
    const auto arrow = name.find(">core");
    if (name.rfind("spine", 0) != 0 || arrow == std::string::npos) {
      continue;
    }
    const int spine = std::stoi(name.substr(5, arrow - 5));
    const auto core = static_cast<std::size_t>(std::stoi(name.substr(arrow + 5)));
    ++core_ports[core];
    plane_ok[core] = plane_ok[core] && static_cast<int>(core) / 32 == spine % 32 % 4;
  }
  for (int c = 0; c < 128; ++c) {
    EXPECT_EQ(core_ports[static_cast<std::size_t>(c)], 64) << "core " << c;
    EXPECT_TRUE(plane_ok[static_cast<std::size_t>(c)]) << "core " << c;
  }
}

TEST(FabricSizing, SuperpodB300TakesTheReferenceArchitecturesSpinesInTwinPlanes) {
  // The DGX SuperPOD B300 RA (Architecture, Table 3): 1, 2, 4, 8 and 16 SUs of 64 nodes have 8,
  // 16, 32, 64 and 128 spines over 16 leaves a unit (8 rails x 2 planes). An SN5600's 64 x 800GbE
  // split to 128 x 400GbE: 64 down and 64 up per leaf, and a spine takes 128 / (8 x units) cables
  // from each leaf of its plane.
  constexpr int kB300Rails = 16;  // dgx-b300: 8 ConnectX-8, two 400GbE ports each
  const std::vector<std::pair<int, int>> units_and_spines = {
      {1, 8}, {2, 16}, {4, 32}, {8, 64}, {16, 128}};
  for (const auto& [units, spines] : units_and_spines) {
    const int nodes = 64 * units;
    const FabricSpec f = fabric_for_nodes(fabric_preset("superpod-b300"), nodes, kB300Rails);
    EXPECT_EQ(f.tiers, 2) << nodes << " nodes";
    EXPECT_EQ(f.planes, 2) << nodes << " nodes";
    EXPECT_EQ(f.spines * f.planes, spines) << nodes << " nodes";
    const TierPorts p = ports_needed(f, nodes, kB300Rails);
    EXPECT_EQ(p.leaf, 128) << nodes << " nodes";
    EXPECT_EQ(p.spine, 128) << nodes << " nodes";
  }
  // A 17th unit's leaves do not fit a spine: a third tier, still in two planes.
  const FabricSpec past = fabric_for_nodes(fabric_preset("superpod-b300"), 1025, kB300Rails);
  EXPECT_EQ(past.tiers, 3);
  EXPECT_EQ(past.planes, 2);
}

TEST(FabricSizing, SuperpodB300XdrTakesTheReferenceArchitecturesSpines) {
  // The DGX SuperPOD B300 XDR RA (Architecture, Table 3): 1, 2, 4, 8 and 18 SUs of 72 nodes have
  // 8, 16, 32, 64 and 144 leaves and 4, 8, 18, 36 and 72 spines, as many leaf-spine cables as
  // node-leaf ones. A Q3400's 144 x 800G: 72 down and 72 up per leaf; the fewest spines that
  // take 8 x units leaves' 72 uplinks each and divide 72: a 4-SU spine takes 4 from each of 32
  // leaves (128 ports), an 18-SU spine one from each of 144.
  const std::vector<std::tuple<int, int, int>> units_spines_ports = {
      {1, 4, 144}, {2, 8, 144}, {4, 18, 128}, {8, 36, 128}, {18, 72, 144}};
  for (const auto& [units, spines, spine_ports] : units_spines_ports) {
    const int nodes = 72 * units;
    const FabricSpec f = fabric_for_nodes(fabric_preset("superpod-b300-xdr"), nodes, kRails);
    EXPECT_EQ(f.tiers, 2) << nodes << " nodes";
    EXPECT_EQ(f.spines, spines) << nodes << " nodes";
    const TierPorts p = ports_needed(f, nodes, kRails);
    EXPECT_EQ(p.leaf, 144) << nodes << " nodes";
    EXPECT_EQ(p.spine, spine_ports) << nodes << " nodes";
  }
  // A 19th unit's leaves do not fit a spine: a third tier.
  EXPECT_EQ(fabric_for_nodes(fabric_preset("superpod-b300-xdr"), 72 * 18 + 1, kRails).tiers, 3);
}

TEST(FabricPreset, AnUnknownNameIsToldTheNearest) {
  const std::string error = test::input_error_text([] { (void)fabric_preset("superpod-h10"); });
  EXPECT_NE(error.find("unknown fabric preset 'superpod-h10' (did you mean 'superpod-h100'?)"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace railsim::models
