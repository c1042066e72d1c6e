// File: tests/models/scenario/system_file_test.cpp
// The shipped scenarios (scenarios/*.json) read into the systems their descriptions promise.
#include "models/scenario/system_file.hpp"

#include "tests/link_named.hpp"

#include "models/scenario/scenario_error.hpp"
#include "sim/simulator.hpp"

#include <gtest/gtest.h>

namespace railsim::models::scenario {
namespace {

SystemFile shipped(const std::string& stem) {
  return load_system_file(std::string(RAILSIM_SOURCE_DIR) + "/scenarios/" + stem + ".json");
}

TEST(SystemFile, DefaultsFollowTheFabricSpec) {
  const SystemFile f = shipped("dgx-h100-2n");
  EXPECT_EQ(f.name, "dgx-h100-2n");
  EXPECT_EQ(f.system.node.name, "dgx-h100");
  EXPECT_EQ(f.system.nodes, 2);
  EXPECT_EQ(f.system.fabric.rails, RailMapping::kAligned);
  EXPECT_EQ(f.system.fabric.nodes_per_leaf, FabricSpec{}.nodes_per_leaf);
  EXPECT_TRUE(f.faults.empty());
}

TEST(SystemFile, SuperpodLikeScenarioHasFourUnitsOf32) {
  // 128 nodes / 32 per leaf = 4 units; 8 rails x 4 units = 32 leaves.
  const SystemFile f = shipped("dgx-h100-128n");
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(f.system, net);
  EXPECT_EQ(system.leaf_count(), 32);
  EXPECT_EQ(f.system.fabric.spines, 16);
  EXPECT_EQ(system.leaf_of(127, 7), 7 * 4 + 3);
}

TEST(SystemFile, OversubscribedScenarioHalvesTheUplinks) {
  // 8 nodes per leaf at 2:1: 4 uplinks per leaf, one per spine.
  const SystemFile f = shipped("dgx-h100-16n-oversub2");
  EXPECT_DOUBLE_EQ(f.system.fabric.oversubscription, 2.0);
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(f.system, net);
  (void)test::link_named(net, "leaf0>spine3.3");
  for (std::uint32_t l = 0; l < net.link_count(); ++l) {
    EXPECT_NE(net.link(sim::LinkId{l}).name, "leaf0>spine0.4");
  }
}

TEST(SystemFile, HalfRateFaultHalvesExactlyThatCable) {
  const SystemFile f = shipped("dgx-h100-16n-half-uplink");
  ASSERT_EQ(f.faults.size(), 1U);
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  System system(f.system, net);
  const double before = net.link(test::link_named(net, "leaf0>spine1.1")).capacity.bytes_per_s;
  apply_faults(f, system, net);
  sim.run();
  EXPECT_DOUBLE_EQ(net.link(test::link_named(net, "leaf0>spine1.1")).capacity.bytes_per_s,
                   before / 2);
  EXPECT_DOUBLE_EQ(net.link(test::link_named(net, "leaf0>spine0.0")).capacity.bytes_per_s, before);
}

TEST(SystemFile, GdrOffScenarioDisablesGdrOnNodeTwoOnly) {
  const SystemFile f = shipped("dgx-h100-4n-gdr-off");
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(f.system, net);
  EXPECT_TRUE(system.uses_gdr(1, 0, 0));
  EXPECT_FALSE(system.uses_gdr(2, 0, 0));
}

TEST(SystemFile, RoceScenarioPaysEthernetHeaders) {
  // RoCEv2 at MTU 4096: 400 Gb/s x 4096 / (4096 + 82) = 49.03 GB/s of payload per port.
  const SystemFile f = shipped("dgx-h100-16n-roce-ecmp");
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(f.system, net);
  EXPECT_NEAR(net.link(test::link_named(net, "n0.mlx5_0>leaf0")).capacity.bytes_per_s,
              50e9 * 4096.0 / 4178.0, 1.0);
  EXPECT_EQ(f.system.fabric.switch_latency, sim::ns(600));
}

TEST(SystemFile, MisalignedScenarioPermutesTheRails) {
  const SystemFile f = shipped("dgx-h100-16n-misaligned");
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(f.system, net);
  int moved = 0;
  for (int n = 0; n < 16; ++n) {
    for (int i = 0; i < 8; ++i) {
      moved += system.rail_of(n, i) != i ? 1 : 0;
    }
  }
  EXPECT_GT(moved, 0);
}

TEST(SystemFile, PcieFaultTrainsBothDirectionsOfAnElementsLinkDown) {
  // GPU3 of node 1 trained at Gen4 x16: 16 x 16 GT/s x 128/130 / 8 x 0.78 = 24.58 GB/s each way,
  // which now bounds a GPU3 -> GPU3 RDMA stream (it was 49.15 GB/s at Gen5).
  const JsonDocument doc = parse_json(R"({"system": {"node": "dgx-h100", "nodes": 2,
      "faults": [{"pcie": "n1.gpu3", "generation": 4, "lanes": 16}]}})",
                                      "inline.json");
  const SystemFile f = read_system(doc.root());
  ASSERT_EQ(f.faults.size(), 2U);
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  System system(f.system, net);
  apply_faults(f, system, net);
  const double gen4 = 16 * 16 * 128.0 / 130 / 8 * 0.78;
  EXPECT_NEAR(net.link(test::link_named(net, "n1.gpu3>n1.sw3")).capacity.in_gbytes_per_s(), gen4,
              1e-9);
  EXPECT_NEAR(net.link(test::link_named(net, "n1.sw3>n1.gpu3")).capacity.in_gbytes_per_s(), gen4,
              1e-9);
  sim::FlowSpec stream;
  stream.path = system.route({0, 3, 3}, {1, 3, 3});
  stream.size = sim::gb(1);
  const sim::FlowId id = net.start_flow(stream);
  sim.run_until(sim::at(sim::us(1)));
  EXPECT_NEAR(net.rate(id).in_gbytes_per_s(), gen4, 1e-9);
}

TEST(SystemFile, PcieFaultOnAMissingElementPointsAtIt) {
  for (const char* element : {"n5.gpu3", "n0.gpu9", "gpu3"}) {
    const JsonDocument doc = parse_json(
        std::string(R"({"system": {"node": "dgx-h100", "nodes": 2, "faults": [{"pcie": ")") +
            element + R"(", "generation": 4, "lanes": 16}]}})",
        "inline.json");
    try {
      (void)read_system(doc.root());
      ADD_FAILURE() << element << " was accepted";
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.json_pointer(), "/system/faults/0/pcie") << e.what();
    }
  }
}

TEST(SystemFile, DownFaultTakesACableOutOfTheRoutes) {
  const JsonDocument doc = parse_json(R"({"system": {"node": "dgx-h100", "nodes": 16,
      "fabric": {"nodes_per_leaf": 8},
      "faults": [{"link": "leaf0>spine1.1", "down": true}]}})",
                                      "inline.json");
  const SystemFile f = read_system(doc.root());
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  System system(f.system, net);
  apply_faults(f, system, net);
  EXPECT_TRUE(system.is_link_down(test::link_named(net, "leaf0>spine1.1")));
  EXPECT_FALSE(system.is_link_down(test::link_named(net, "leaf0>spine1.5")));
}

TEST(SystemFile, PresetNameMakesATwoNodeSystem) {
  const SystemFile f = system_from_argument("dgx-a100");
  EXPECT_EQ(f.system.nodes, 2);
  EXPECT_EQ(f.system.node.name, "dgx-a100");
  EXPECT_THROW(system_from_argument("missing-file.json"), ScenarioError);
}

}  // namespace
}  // namespace railsim::models::scenario
