// File: tests/models/system/three_tier_test.cpp
// Three-tier fabrics (pods of leaves and spines under core switches) and the superpod-h100
// fabric preset: link counts and names, which routes reach a core, how adaptive lanes spread
// over the core cables, a degraded core cable, bad parameters, and the preset as scenario files
// write it. Every expected figure is derived by hand in the comments.
#include "tests/input_error_text.hpp"
#include "tests/link_named.hpp"

#include "models/fabric/fabric_presets.hpp"
#include "models/hardware/node_presets.hpp"
#include "models/hardware/pcie.hpp"
#include "models/scenario/system_file.hpp"
#include "models/system/system.hpp"
#include "sim/simulator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace railsim::models {
namespace {

// The small three-tier fabric of these tests: 16 DGX H100 (8 rails), 4 nodes per leaf, so 4
// units; 2 units per pod, so 2 pods (nodes 0-7 and 8-15). Per pod 4 spines (spines 0-3 in pod 0,
// 4-7 in pod 1); at 1:1 a leaf has 4 uplinks, one to each spine of its pod. A spine so has
// 8 rails x 2 units x 1 = 16 downlinks and, at 2:1, 16 / 2 = 8 uplinks over 4 cores: 2 to each
// (uplink i to core i % 4).
SystemSpec small_three_tier(Routing routing = Routing::kEcmp) {
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = 16;
  spec.fabric.tiers = 3;
  spec.fabric.nodes_per_leaf = 4;
  spec.fabric.units_per_pod = 2;
  spec.fabric.spines = 4;
  spec.fabric.cores = 4;
  spec.fabric.core_oversubscription = 2.0;
  spec.fabric.routing = routing;
  return spec;
}

bool has_link(const sim::FlowNetwork& net, const std::string& name) {
  return net.find_link(name).has_value();
}

// The names of the cables between switches along a path, in order.
std::vector<std::string> switch_cables(const System& system,
                                       const sim::FlowNetwork& net,
                                       const std::vector<sim::LinkId>& path) {
  std::vector<std::string> names;
  names.reserve(path.size());
  for (sim::LinkId l : path) {
    if (system.is_spine_link(l) || system.is_core_link(l)) {
      names.emplace_back(net.link(l).name);
    }
  }
  return names;
}

TEST(ThreeTier, LinkCountsOfASmallFabricMatchAHandCount) {
  // small_three_tier(): 8 rails x 4 units = 32 leaves, 2 pods x 4 = 8 spines, 4 cores.
  // NIC ports: 2 directions x 16 nodes x 8 NICs = 256. Leaf-spine: 2 x 32 leaves x 4 uplinks =
  // 256. Spine-core: 2 x 8 spines x 8 uplinks = 128. Inside a DGX H100 76 links
  // (fabric_summary_test.cpp), 16 x 76 = 1216. In all 256 + 256 + 128 + 1216 = 1856.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(small_three_tier(), net);
  EXPECT_EQ(system.leaf_count(), 32);
  int ports = 0;
  int leaf_spine = 0;
  int spine_core = 0;
  for (std::uint32_t l = 0; l < net.link_count(); ++l) {
    ports += system.is_node_port_link(sim::LinkId{l}) ? 1 : 0;
    leaf_spine += system.is_spine_link(sim::LinkId{l}) ? 1 : 0;
    spine_core += system.is_core_link(sim::LinkId{l}) ? 1 : 0;
  }
  EXPECT_EQ(ports, 256);
  EXPECT_EQ(leaf_spine, 256);
  EXPECT_EQ(spine_core, 128);
  EXPECT_EQ(net.link_count(), 1856U);
  // Leaf 2 is rail 0's leaf of unit 2, in pod 1: its uplink 3 goes to spine 4 + 3 % 4 = 7.
  // Spine 7's uplink 7 goes to core 7 % 4 = 3.
  EXPECT_TRUE(has_link(net, "leaf2>spine7.3"));
  EXPECT_TRUE(has_link(net, "spine7.3>leaf2"));
  EXPECT_FALSE(has_link(net, "leaf2>spine3.3"));
  EXPECT_TRUE(has_link(net, "spine7>core3.7"));
  EXPECT_TRUE(has_link(net, "core3.7>spine7"));
  EXPECT_FALSE(has_link(net, "spine7>core3.8"));
}

TEST(ThreeTier, TrafficBetweenPodsCrossesACoreAndInsideAPodNever) {
  // Between pods a route runs NIC > leaf > spine > core > spine > leaf > NIC: five switches,
  // so four cables between switches (two leaf-spine, two spine-core) plus the two NIC ports.
  // Inside a pod, leaves of different units meet at a spine (two leaf-spine cables), and under
  // one leaf nothing but the NIC ports.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(small_three_tier(), net);
  for (int a = 0; a < 8; ++a) {
    for (int b = 8; b < 16; b += 3) {
      for (int i = 0; i < 8; ++i) {
        const auto cables = switch_cables(system, net, system.route({a, i, i}, {b, i, i}));
        ASSERT_EQ(cables.size(), 4U) << a << " -> " << b;
        EXPECT_TRUE(cables[0].starts_with("leaf"));
        EXPECT_TRUE(cables[1].starts_with("spine") && cables[1].find(">core") != std::string::npos);
        EXPECT_TRUE(cables[2].starts_with("core"));
        EXPECT_TRUE(cables[3].starts_with("spine") && cables[3].find(">leaf") != std::string::npos);
      }
    }
  }
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      const bool same_unit = a / 4 == b / 4;
      for (int i = 0; a != b && i < 8; ++i) {
        const auto path = system.route({a, i, i}, {b, i, i});
        EXPECT_EQ(switch_cables(system, net, path).size(), same_unit ? 0U : 2U);
        EXPECT_FALSE(std::any_of(path.begin(), path.end(),
                                 [&](sim::LinkId l) { return system.is_core_link(l); }));
      }
    }
  }
}

TEST(ThreeTier, AdaptiveLanesBetweenPodsTakeEveryCoreCableOfBothPodsOnce) {
  // Node 0 (pod 0, leaf 0) to node 8 (pod 1, leaf 2), rail 0. By the rule of system.hpp a
  // transfer between pods has S x c = 4 spines x 8 uplinks = 32 lanes. Lane l takes leaf uplink
  // l % 4 (to spine l % 4), then that spine's uplink (l / 4) % 8; descending it enters pod 1's
  // spine of the same index, 4 + l % 4, over the core's cable of the same rank, and that
  // spine's one cable to leaf 2. So each of pod 0's 4 x 8 = 32 spine>core cables carries
  // exactly one lane, as does each of the 32 core>spine cables into pod 1; leaf 0's 4 uplinks
  // and leaf 2's 4 downlinks carry 32 / 4 = 8 lanes each; no other switch cable carries any.
  // All 32 lanes leave through one NIC whose PCIe Gen5 x16 link (49.15 GB/s) is below the NDR
  // port (49.68 GB/s), so together they run at 49.15 GB/s.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(small_three_tier(Routing::kAdaptive), net);
  const auto lanes = system.routes({0, 0, kHostMemory}, {8, 0, kHostMemory});
  ASSERT_EQ(lanes.size(), 32U);
  std::map<std::string, int> load;
  std::vector<sim::FlowId> flows;
  flows.reserve(lanes.size());
  for (const auto& path : lanes) {
    for (const std::string& name : switch_cables(system, net, path)) {
      ++load[name];
    }
    sim::FlowSpec lane;
    lane.path = path;
    lane.size = sim::gb(1);
    flows.push_back(net.start_flow(std::move(lane)));
  }
  int up_cables = 0;
  int down_cables = 0;
  for (const auto& [name, lanes_on_it] : load) {
    if (name.starts_with("spine") && name.find(">core") != std::string::npos) {
      const int spine = std::stoi(name.substr(5));
      EXPECT_LT(spine, 4) << name << ": only pod 0's spines climb";
      EXPECT_EQ(lanes_on_it, 1) << name;
      ++up_cables;
    } else if (name.starts_with("core")) {
      EXPECT_GE(std::stoi(name.substr(name.find(">spine") + 6)), 4) << name;
      EXPECT_EQ(lanes_on_it, 1) << name;
      ++down_cables;
    } else {
      EXPECT_TRUE(name.starts_with("leaf0>") || name.find(">leaf2") != std::string::npos) << name;
      EXPECT_EQ(lanes_on_it, 8) << name;
    }
  }
  EXPECT_EQ(up_cables, 32);
  EXPECT_EQ(down_cables, 32);
  EXPECT_EQ(load.size(), 32U + 32U + 4U + 4U);
  sim.run_until(sim::at(sim::us(1)));
  double rate = 0.0;
  for (sim::FlowId f : flows) {
    rate += net.rate(f).bytes_per_s;
  }
  EXPECT_NEAR(rate, pcie_effective_bandwidth({5, 16}).bytes_per_s, 1e3);

  // Inside pod 0 (node 0 to node 4, leaf 0 to leaf 1) the route turns at a spine: 4 lanes, one
  // per uplink of leaf 0, each down the cable of its spine to leaf 1, none at a core.
  std::map<std::string, int> inside;
  for (const auto& path : system.routes({0, 0, kHostMemory}, {4, 0, kHostMemory})) {
    for (const std::string& name : switch_cables(system, net, path)) {
      ++inside[name];
    }
  }
  EXPECT_EQ(inside, (std::map<std::string, int>{{"leaf0>spine0.0", 1},
                                                {"leaf0>spine1.1", 1},
                                                {"leaf0>spine2.2", 1},
                                                {"leaf0>spine3.3", 1},
                                                {"spine0.0>leaf1", 1},
                                                {"spine1.1>leaf1", 1},
                                                {"spine2.2>leaf1", 1},
                                                {"spine3.3>leaf1", 1}}));
}

TEST(ThreeTier, HalfRateCoreCableSlowsExactlyTheFlowsThatCrossIt) {
  // Four GPU-to-GPU flows on distinct rails and nodes, each otherwise held by its PCIe Gen5 x16
  // hop at 49.15 GB/s: A 0 -> 8 (rail 0) and B 1 -> 9 (rail 1) from pod 0 to pod 1, C 2 -> 6
  // (rail 2) inside pod 0, D 12 -> 3 (rail 3) from pod 1 to pod 0. Different rails use
  // different leaves, so only A and B can meet, on a spine-core cable; the ECMP seed is the
  // first that keeps them apart. A's cable up to its core then runs at half the NDR payload
  // rate, 50e9 x 4096 / 4122 / 2 = 24.84 GB/s: A drops to that, B, C and D stay at 49.15.
  SystemSpec spec = small_three_tier();
  const std::vector<std::pair<Endpoint, Endpoint>> ends = {{{0, 0, 0}, {8, 0, 0}},
                                                           {{1, 1, 1}, {9, 1, 1}},
                                                           {{2, 2, 2}, {6, 2, 2}},
                                                           {{12, 3, 3}, {3, 3, 3}}};
  for (std::uint64_t seed = 0;; ++seed) {
    ASSERT_LT(seed, 64U) << "no seed keeps A and B apart";
    spec.fabric.ecmp_seed = seed;
    sim::Simulator probe_sim;
    sim::FlowNetwork probe(probe_sim);
    const System system(spec, probe);
    const auto a = switch_cables(system, probe, system.route(ends[0].first, ends[0].second));
    const auto b = switch_cables(system, probe, system.route(ends[1].first, ends[1].second));
    if (std::none_of(a.begin(), a.end(),
                     [&](const std::string& n) { return std::count(b.begin(), b.end(), n) > 0; })) {
      break;
    }
  }
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(spec, net);
  std::vector<sim::FlowId> flows;
  flows.reserve(ends.size());
  std::vector<std::vector<sim::LinkId>> paths;
  paths.reserve(ends.size());
  for (const auto& [from, to] : ends) {
    paths.push_back(system.route(from, to));
    sim::FlowSpec flow;
    flow.path = paths.back();
    flow.size = sim::gb(100);
    flows.push_back(net.start_flow(std::move(flow)));
  }
  const auto core_cable = std::find_if(paths[0].begin(), paths[0].end(), [&](sim::LinkId l) {
    return system.is_core_link(l) && net.link(l).name.starts_with("spine");
  });
  ASSERT_NE(core_cable, paths[0].end());
  net.set_link_capacity(*core_cable, net.link(*core_cable).capacity * 0.5);
  sim.run_until(sim::at(sim::us(1)));
  const double pcie = pcie_effective_bandwidth({5, 16}).bytes_per_s;
  const double half_port = 50e9 * 4096.0 / 4122.0 / 2;
  for (std::size_t f = 0; f < flows.size(); ++f) {
    EXPECT_NEAR(net.rate(flows[f]).bytes_per_s, f == 0 ? half_port : pcie, 1.0) << "flow " << f;
  }
}

TEST(ThreeTier, RoutesAvoidACoreCableThatIsDown) {
  // Spine 0's uplinks 0 and 4 both go to core 0; with both down, no route out of spine 0 reaches
  // core 0 that way, and every route from pod 0 still arrives.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  System system(small_three_tier(), net);
  system.set_link_down(test::link_named(net, "spine0>core0.0"));
  system.set_link_down(test::link_named(net, "spine0>core0.4"));
  for (int a = 0; a < 8; ++a) {
    for (std::uint64_t qp = 0; qp < 16; ++qp) {
      for (const std::string& name :
           switch_cables(system, net, system.route({a, 0, 0}, {8 + a, 0, 0}, qp))) {
        EXPECT_NE(name, "spine0>core0.0");
        EXPECT_NE(name, "spine0>core0.4");
      }
    }
  }
}

TEST(ThreeTier, ImpossibleParametersAreClearErrors) {
  auto build = [](SystemSpec spec) {
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    const System system(std::move(spec), net);
  };
  EXPECT_NO_THROW(build(small_three_tier()));
  auto expect_error = [&](void (*change)(FabricSpec&), const std::string& words) {
    SystemSpec spec = small_three_tier();
    change(spec.fabric);
    const std::string error = test::input_error_text([&] { build(spec); });
    EXPECT_NE(error.find(words), std::string::npos) << "for " << words << ": " << error;
  };
  expect_error([](FabricSpec& f) { f.tiers = 4; }, "4 tiers, expected 2 or 3");
  expect_error([](FabricSpec& f) { f.cores = 0; }, "cores >= 1");
  expect_error([](FabricSpec& f) { f.units_per_pod = 0; }, "units_per_pod >= 1");
  expect_error([](FabricSpec& f) { f.core_oversubscription = 0.5; }, "core_oversubscription >= 1");
  // 4 uplinks cannot spread evenly over 3 spines.
  expect_error([](FabricSpec& f) { f.spines = 3; }, "4 uplinks over 3 spines");
  // 16 downlinks at 32:1 leave floor(0.5) = 0 uplinks.
  expect_error([](FabricSpec& f) { f.core_oversubscription = 32.0; },
               "16 downlinks per spine at 32:1 core oversubscription leave a spine no uplink");
}

}  // namespace
}  // namespace railsim::models

namespace railsim::models {
namespace {

TEST(FabricPreset, SuperpodH100At127NodesHas32LeavesAnd16Spines) {
  // 127 DGX H100 fill 4 units of 32 (the last 31): 8 rails x 4 = 32 leaves, as the reference
  // architecture's 4-SU row says, under 16 spines. Non-blocking: 32 uplinks per leaf, 2 to each
  // spine, so 32 x 32 = 1024 leaf-spine cables (the RA's 1024), 2048 links one per direction.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = 127;
  spec.fabric = fabric_preset("superpod-h100");
  const System system(spec, net);
  EXPECT_EQ(system.leaf_count(), 32);
  EXPECT_EQ(system.spec().fabric.spines, 16);
  int leaf_spine = 0;
  for (std::uint32_t l = 0; l < net.link_count(); ++l) {
    leaf_spine += system.is_spine_link(sim::LinkId{l}) ? 1 : 0;
  }
  EXPECT_EQ(leaf_spine, 2048);
  // Uplink p of a leaf goes to spine p % 16: leaf 31's uplink 31 to spine 15, leaf 0's uplink 16
  // to spine 0, and there is no uplink 32.
  EXPECT_TRUE(has_link(net, "leaf31>spine15.31"));
  EXPECT_TRUE(has_link(net, "leaf0>spine0.16"));
  EXPECT_FALSE(has_link(net, "leaf0>spine0.32"));
}

}  // namespace
}  // namespace railsim::models

namespace railsim::models::scenario {
namespace {

SystemFile read(const std::string& json) {
  const JsonDocument doc = parse_json(json);
  return read_system(doc.root());
}

// The message of the ScenarioError that reading `json` throws, with its pointer.
std::string error_of(const std::string& json) {
  return test::input_error_text([&] { (void)read(json); });
}

TEST(FabricPresetFile, ShippedSuperpodScenarioLoadsWith32LeavesAnd16Spines) {
  const SystemFile f =
      load_system_file(std::string(RAILSIM_SOURCE_DIR) + "/scenarios/superpod-h100-127n.json");
  EXPECT_EQ(f.system.node.name, "dgx-h100");
  EXPECT_EQ(f.system.nodes, 127);
  EXPECT_EQ(f.system.fabric.spines, 16);
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(f.system, net);
  EXPECT_EQ(system.leaf_count(), 32);
}

TEST(FabricPresetFile, KeysBesideThePresetOverrideIt) {
  // 64 nodes = 2 units: 1:1 takes the RA's 8 spines. The file's 2:1 replaces the preset's 1:1,
  // and the fabric grows by it: 16 leaves x 16 uplinks = 256 cables, 4 QM9700 spines' ports.
  const SystemFile f = read(R"({"system": {"node": "dgx-h100", "nodes": 64,
      "fabric": {"oversubscription": "2:1", "preset": "superpod-h100"}}})");
  EXPECT_EQ(f.system.fabric.spines, 4);
  EXPECT_DOUBLE_EQ(f.system.fabric.oversubscription, 2.0);
  const SystemFile g = read(R"({"system": {"node": "dgx-h100", "nodes": 64,
      "fabric": {"preset": "superpod-h100", "spines": 16}}})");
  EXPECT_EQ(g.system.fabric.spines, 16);
}

TEST(FabricPresetFile, AGrowingPresetTakesTheFilesCoreOversubscription) {
  // Spines 2:1 towards the cores: a spine with 8P leaves below and 4P uplinks fills 12P <= 64
  // QM9700 ports at P = 5 units per pod. 2,048 nodes = 64 units: 13 pods of 32 spines x 20
  // uplinks = 640 cables; the fewest cores dividing 640 with 13 x 640 / C <= 64 ports: 160.
  const SystemFile f = read(R"({"system": {"node": "dgx-h100", "nodes": 2048,
      "fabric": {"preset": "superpod-h100", "core_oversubscription": "2:1"}}})");
  EXPECT_EQ(f.system.fabric.tiers, 3);
  EXPECT_EQ(f.system.fabric.units_per_pod, 5);
  EXPECT_EQ(f.system.fabric.cores, 160);
  EXPECT_DOUBLE_EQ(f.system.fabric.core_oversubscription, 2.0);
}

TEST(FabricPresetFile, ThreeTierKeysAreRead) {
  const SystemFile f = read(R"({"system": {"node": "dgx-h100", "nodes": 16,
      "fabric": {"tiers": 3, "nodes_per_leaf": 4, "units_per_pod": 2, "spines": 4, "cores": 4,
                 "core_oversubscription": "2:1"}}})");
  EXPECT_EQ(f.system.fabric.tiers, 3);
  EXPECT_EQ(f.system.fabric.units_per_pod, 2);
  EXPECT_EQ(f.system.fabric.cores, 4);
  EXPECT_DOUBLE_EQ(f.system.fabric.core_oversubscription, 2.0);
}

TEST(FabricPresetFile, BadFabricKeysNameTheirPointer) {
  EXPECT_NE(error_of(R"({"system": {"node": "dgx-h100", "nodes": 2,
                "fabric": {"preset": "superpod-h10"}}})")
                .find("/system/fabric/preset: unknown fabric preset 'superpod-h10' (did you mean "
                      "'superpod-h100'?)"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"system": {"node": "dgx-h100", "nodes": 65537,
                "fabric": {"preset": "superpod-h100"}}})")
                .find("/system/fabric: 65537 nodes are more than three tiers of QM9700 reach"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"system": {"node": "dgx-h100", "nodes": 2,
                "fabric": {"planes": 3}}})")
                .find("/system/fabric/planes: 3 planes for 8 rails: a plane holds whole rails"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"system": {"node": "dgx-h100", "nodes": 2, "fabric": {"tiers": 1}}})")
                .find("/system/fabric/tiers: expected an integer from 2 to 3, got 1"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"system": {"node": "dgx-h100", "nodes": 2, "fabric": {"cores": 8}}})")
                .find(R"(/system/fabric/cores: "cores" needs "tiers": 3)"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"system": {"node": "dgx-h100", "nodes": 2,
                "fabric": {"tiers": 3, "cores": 0}}})")
                .find("/system/fabric/cores: expected an integer from 1 to 4096, got 0"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"system": {"node": "dgx-h100", "nodes": 2,
                "fabric": {"tiers": 3, "core_oversubscription": 0.5}}})")
                .find("/system/fabric/core_oversubscription: expected a ratio of at least 1:1"),
            std::string::npos);
}

}  // namespace
}  // namespace railsim::models::scenario
