// File: tests/models/fabric/switch_radix_test.cpp
// Switch ports against hand counts of the cabling (fabric_spec.hpp: uplink p of a leaf to spine
// p % spines; a pod's spine uplinks to the cores in turn) and the datasheets' port counts: designs
// that fit a QM9700 build, one that needs more ports is refused naming the tier and both counts,
// and a port splits into slower ones.
#include "models/fabric/switch_radix.hpp"

#include "models/fabric/fabric_presets.hpp"
#include "models/hardware/node_presets.hpp"
#include "models/scenario/json_reader.hpp"
#include "models/scenario/scenario_error.hpp"
#include "models/scenario/system_file.hpp"
#include "models/system/system.hpp"
#include "sim/input_error.hpp"
#include "sim/simulator.hpp"

#include <gtest/gtest.h>

#include <string>

namespace railsim::models {
namespace {

// The superpod-h100 preset's fabric with its spines laid out by hand, not grown.
FabricSpec superpod_with_spines(int spines) {
  FabricSpec fabric = fabric_preset("superpod-h100");
  fabric.grows_by_radix = false;
  fabric.spines = spines;
  return fabric;
}

std::string radix_error(const FabricSpec& fabric, int nodes, int rails) {
  return switch_radix_problem(fabric, nodes, rails).value_or("no error");
}

TEST(SwitchRadix, PortsSplitIntoSlowerOnes) {
  // QM9700: 64 x 400G, or 128 x 200G (NDR200); SN5600: 64 x 800G, 128 x 400G; nothing faster.
  EXPECT_EQ(ports_at(switch_model_named("qm9700"), sim::gbps(400)), 64);
  EXPECT_EQ(ports_at(switch_model_named("qm9700"), sim::gbps(200)), 128);
  EXPECT_EQ(ports_at(switch_model_named("sn5600"), sim::gbps(400)), 128);
  EXPECT_EQ(ports_at(switch_model_named("q3400"), sim::gbps(800)), 144);
  EXPECT_EQ(ports_at(switch_model_named("qm9700"), sim::gbps(800)), 0);
}

TEST(SwitchRadix, TheSuperpodFillsEveryQm9700PortAtFourUnits) {
  // 4 SUs x 8 rails = 32 leaves, each 32 down and 32 up; 16 spines take 32 / 16 = 2 cables from
  // each leaf: 64 ports, as the reference architecture lays it out.
  const FabricSpec fabric = superpod_with_spines(16);
  const TierPorts p = ports_needed(fabric, 128, 8);
  EXPECT_EQ(p.leaf, 64);
  EXPECT_EQ(p.spine_leaves, 32);
  EXPECT_EQ(p.spine, 64);
  EXPECT_EQ(radix_error(fabric, 128, 8), "no error");
}

TEST(SwitchRadix, TooManyLeavesForTheSpinesAreRefused) {
  // The RA's 16 spines under 4,096 nodes: 128 units x 8 rails = 1,024 leaves, 2 cables each to
  // every spine: 2,048 ports.
  const FabricSpec fabric = superpod_with_spines(16);
  EXPECT_EQ(radix_error(fabric, 4096, 8),
            "each spine needs 2048 ports (2048 down from 1024 leaves), a QM9700 has 64 at "
            "400 Gb/s: more spines, or three tiers");
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = 4096;
  spec.fabric = fabric;
  try {
    const System system(spec, network);
    ADD_FAILURE() << "no error";
  } catch (const sim::InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("fabric: each spine needs 2048 ports", 0), 0U)
        << e.what();
  }
  EXPECT_EQ(network.link_count(), 0U);  // refused before any link is built
}

TEST(SwitchRadix, ThreeTiersCountSpineUplinksAndCoreDownlinks) {
  // Pods of 4 SUs (32 leaves of 32 down, 32 up), 32 spines per pod, 32 cores, 1,024 nodes: a
  // spine takes 1 cable from each of its pod's 32 leaves and sends 32 up, 64 ports; a pod's 32 x
  // 32 spine-core cables over 32 cores are 32 from each of 8 pods: 256 ports, four QM9700s'.
  FabricSpec fabric = superpod_with_spines(32);
  fabric.tiers = 3;
  fabric.units_per_pod = 4;
  fabric.cores = 32;
  const TierPorts p = ports_needed(fabric, 1024, 8);
  EXPECT_EQ(p.leaf, 64);
  EXPECT_EQ(p.spine_down, 32);
  EXPECT_EQ(p.spine, 64);
  EXPECT_EQ(p.core_pods, 8);
  EXPECT_EQ(p.core, 256);
  EXPECT_EQ(radix_error(fabric, 1024, 8),
            "each core needs 256 ports (32 from each of 8 pods), a QM9700 has 64 at 400 Gb/s: "
            "more cores");
}

TEST(SwitchRadix, LeavesAndRatesBeyondTheSwitchAreRefused) {
  FabricSpec fabric;
  fabric.switch_model = switch_model_named("qm9700");
  fabric.nodes_per_leaf = 48;  // 48 down + 48 up
  EXPECT_EQ(radix_error(fabric, 48, 8),
            "each leaf needs 96 ports (48 down to its nodes, 48 up), a QM9700 has 64 at "
            "400 Gb/s: fewer nodes per leaf or more oversubscription");
  fabric.nodes_per_leaf = 32;
  fabric.port_rate = sim::gbps(800);
  EXPECT_EQ(radix_error(fabric, 32, 8), "ports at 800 Gb/s, above a QM9700's 400 Gb/s");
  // Without a model, any port count goes.
  fabric.switch_model.reset();
  EXPECT_EQ(radix_error(fabric, 4096, 8), "no error");
}

// The message of the ScenarioError that reading the system of `json` throws.
std::string read_error(const char* json) {
  const scenario::JsonDocument doc = scenario::parse_json(json);
  try {
    (void)scenario::read_system(doc.root());
  } catch (const scenario::ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SwitchRadix, AScenarioBeyondItsSwitchesIsRefusedAtItsFabric) {
  // 64 nodes of the default fabric: 2 units x 8 rails = 16 leaves, 32 uplinks over 4 spines, 8
  // from each leaf to each spine: 128 ports.
  const std::string error = read_error(
      R"({"system": {"node": "dgx-h100", "nodes": 64, "fabric": {"switch": "qm9700"}}})");
  EXPECT_NE(error.find("/system/fabric: each spine needs 128 ports (128 down from 16 leaves), a "
                       "QM9700 has 64 at 400 Gb/s"),
            std::string::npos)
      << error;
}

TEST(SwitchRadix, AScenarioNamesItsSwitchOrIsToldTheKnownOnes) {
  const std::string error =
      read_error(R"({"system": {"node": "dgx-h100", "nodes": 2, "fabric": {"switch": "qm970"}}})");
  EXPECT_NE(error.find("/system/fabric/switch: unknown switch 'qm970' (did you mean 'qm9700'?); "
                       "known switches: qm9700, q3400, sn5600"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace railsim::models
