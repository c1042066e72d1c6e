// File: tests/tools/topo/topo_fabric_test.cpp
// `railsim topo` after the matrix: the Fabric section's figures (hand-derived in the comments;
// tests/models/system/fabric_summary_test.cpp derives them in full), the link list that fault names
// come from, the JSON "fabric" object, the Graphviz drawing, and bad input.
#include "sim/input_error.hpp"
#include "tools/command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

std::string run(const std::vector<std::string>& args) {
  std::ostringstream out;
  EXPECT_EQ(run_topo(args, out), 0);
  return out.str();
}

// The Fabric section's rows, label -> value: "  Label   value" after the "Fabric:" line, up to
// the blank line that ends it (degraded links' own lines are indented further).
std::map<std::string, std::string> fabric_rows(const std::string& text) {
  std::map<std::string, std::string> rows;
  std::istringstream in(text);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("Fabric: ", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside || line.rfind("  ", 0) != 0 || line.rfind("    ", 0) == 0) {
      if (inside && line.empty() && !rows.empty()) {
        break;
      }
      continue;
    }
    const std::string body = line.substr(2);
    const auto gap = body.find("  ");
    const auto value = body.find_first_not_of(' ', gap);
    rows[body.substr(0, gap)] = body.substr(value);
  }
  return rows;
}

// The capacity the link list prints for `name`, in Gb/s; -1 when the link is not listed.
double listed_capacity(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string first;
    double capacity = 0.0;
    std::string unit;
    if (fields >> first >> capacity >> unit && first == name && unit == "Gb/s") {
      return capacity;
    }
  }
  return -1.0;
}

std::string write_scenario(const std::string& file_name, const std::string& json) {
  std::string path = ::testing::TempDir() + file_name;
  std::ofstream(path) << json;
  return path;
}

TEST(TopoFabric, TwoDgxH100ByDefault) {
  // A preset is 2 nodes: one unit, 8 leaves of 32 uplinks; bisection = one node's 8 ports of
  // 400 x 4096/4122 = 397.48 Gb/s = 49.68 GB/s: 397.48 GB/s. Links: 2 x 2 x 8 = 32 node ports,
  // 2 x 8 x 32 = 512 cables (the links inside nodes: tests/models/system/fabric_summary_test.cpp).
  const auto rows = fabric_rows(run({"--system", "dgx-h100"}));
  EXPECT_EQ(rows.at("Rails (compute NICs per node)"), "8");
  EXPECT_EQ(rows.at("Scalable units"), "1 of 32 nodes per leaf");
  EXPECT_EQ(rows.at("Leaves"), "8 (8 rails x 1 unit)");
  EXPECT_EQ(rows.at("Spines"), "4");
  EXPECT_EQ(rows.at("Uplinks per leaf"), "32 (8 to each spine)");
  EXPECT_EQ(rows.at("Port rate, node to leaf"), "397.48 Gb/s payload (49.68 GB/s)");
  EXPECT_EQ(rows.at("Oversubscription"), "1.00:1 (downlink:uplink; requested 1:1)");
  EXPECT_EQ(rows.at("Bisection bandwidth"), "397.48 GB/s per direction");
  EXPECT_EQ(rows.at("Links, node to leaf"), "32 (one per direction)");
  EXPECT_EQ(rows.at("Links, leaf to spine"), "512");
  EXPECT_EQ(rows.at("Degraded links"), "none");
}

TEST(TopoFabric, HundredTwentyEightDgxH100InFourUnits) {
  // --nodes 128: 4 units of 32, 32 leaves; 1:1, so full bisection: 64 nodes x 8 ports x
  // 49.68 GB/s = 25438.52 GB/s; leaf downlink = uplink = 32 x 49.68 = 1589.91 GB/s.
  const auto rows = fabric_rows(run({"--system", "dgx-h100", "--nodes", "128"}));
  EXPECT_EQ(rows.at("Scalable units"), "4 of 32 nodes per leaf");
  EXPECT_EQ(rows.at("Leaves"), "32 (8 rails x 4 units)");
  EXPECT_EQ(rows.at("Leaf downlink capacity"), "1589.91 GB/s (32 ports)");
  EXPECT_EQ(rows.at("Leaf uplink capacity"), "1589.91 GB/s (32 ports)");
  EXPECT_EQ(rows.at("Bisection bandwidth"), "25438.52 GB/s per direction");
  EXPECT_EQ(rows.at("Links, node to leaf"), "2048 (one per direction)");
  EXPECT_EQ(rows.at("Links, leaf to spine"), "2048");
}

TEST(TopoFabric, ScenarioFileAtTwoToOneWithAFault) {
  // 128 nodes at 2:1: 16 uplinks per leaf (794.95 GB/s), halves of 2 units cut 2 x 16 cables
  // per rail: 256 x 49.68 = 12719.26 GB/s. The fault halves one uplink: listed as degraded,
  // with the design's figures unchanged.
  const std::string path = write_scenario("topo_fabric_2to1.json", R"({
    "name": "h100-128-2to1",
    "system": {"node": "dgx-h100", "nodes": 128, "fabric": {"oversubscription": "2:1"},
               "faults": [{"link": "leaf0>spine1.1", "rate_scale": 0.5}]}})");
  const std::string text = run({"--system", path});
  const auto rows = fabric_rows(text);
  EXPECT_EQ(rows.at("Uplinks per leaf"), "16 (4 to each spine)");
  EXPECT_EQ(rows.at("Leaf uplink capacity"), "794.95 GB/s (16 ports)");
  EXPECT_EQ(rows.at("Oversubscription"), "2.00:1 (downlink:uplink; requested 2:1)");
  EXPECT_EQ(rows.at("Bisection bandwidth"), "12719.26 GB/s per direction");
  EXPECT_EQ(rows.at("Degraded links"), "1");
  EXPECT_NE(text.find("    leaf0>spine1.1"), std::string::npos);
  EXPECT_NE(text.find("198.74 Gb/s (designed 397.48 Gb/s)"), std::string::npos);
}

TEST(TopoFabric, SlowerNicsShowInTheNodePortRate) {
  // DGX A100 (200G HDR) on the default 400G fabric, 16 nodes: ports 198.74 Gb/s, downlink
  // 32 x 24.84 GB/s against 32 x 49.68 up (0.50:1); bisection 8 nodes x 8 x 24.84 = 1589.91 GB/s.
  const auto rows = fabric_rows(run({"--system", "dgx-a100", "--nodes", "16"}));
  EXPECT_EQ(rows.at("Port rate, node to leaf"), "198.74 Gb/s payload (24.84 GB/s)");
  EXPECT_EQ(rows.at("Port rate, leaf to spine"), "397.48 Gb/s payload (49.68 GB/s)");
  EXPECT_EQ(rows.at("Oversubscription"), "0.50:1 (downlink:uplink; requested 1:1)");
  EXPECT_EQ(rows.at("Bisection bandwidth"), "1589.91 GB/s per direction");
}

TEST(TopoFabric, NicsFasterThanTheFabricAreSaidToTrainDown) {
  // dgx-b300-xdr's 800G XDR ports on the default fabric's 400G: each trains at 400, 397.48 Gb/s
  // of payload at MTU 4096; on its own preset's 800G ports, 794.95 and nothing to say.
  const auto held = fabric_rows(run({"--system", "dgx-b300-xdr", "--nodes", "2"}));
  EXPECT_EQ(held.at("Port rate, node to leaf"),
            "397.48 Gb/s payload (49.68 GB/s); the NICs' 800.00 Gb/s held to the fabric's ports");
  const auto matched =
      fabric_rows(run({"--system", RAILSIM_SOURCE_DIR "/scenarios/superpod-b300-xdr-576n.json"}));
  EXPECT_EQ(matched.at("Port rate, node to leaf"), "794.95 Gb/s payload (99.37 GB/s)");
}

TEST(TopoFabric, LinksListsTheNamesFaultsUse) {
  const std::string text = run({"--system", "dgx-h100", "--links"});
  EXPECT_NEAR(listed_capacity(text, "n0.mlx5_0>leaf0"), 397.48, 1e-9);
  EXPECT_NEAR(listed_capacity(text, "leaf0>n0.mlx5_0"), 397.48, 1e-9);
  EXPECT_NEAR(listed_capacity(text, "leaf0>spine0.0"), 397.48, 1e-9);
  EXPECT_NEAR(listed_capacity(text, "spine0.0>leaf0"), 397.48, 1e-9);
  EXPECT_NE(text.find("Links (" + fabric_rows(text).at("Links in all") + ", one per direction"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(listed_capacity(run({"--system", "dgx-h100"}), "n0.mlx5_0>leaf0"), -1.0);
}

TEST(TopoFabric, JsonCarriesTheFabricAndOnRequestTheLinks) {
  // Same figures as the text: 128 nodes, 32 leaves, bisection 512 x 49.68 GB/s; the link list
  // is as long as the count says.
  const nlohmann::json doc = nlohmann::json::parse(
      run({"--system", "dgx-h100", "--nodes", "128", "--format", "json", "--links"}));
  EXPECT_EQ(doc["system"], "dgx-h100");
  EXPECT_EQ(doc["matrix"]["GPU3"]["NIC5"], "PIX");
  const nlohmann::json& fabric = doc["fabric"];
  EXPECT_EQ(fabric["nodes"], 128);
  EXPECT_EQ(fabric["rails"], 8);
  EXPECT_EQ(fabric["scalable_units"], 4);
  EXPECT_EQ(fabric["leaves"], 32);
  EXPECT_EQ(fabric["spines"], 4);
  EXPECT_EQ(fabric["uplinks_per_leaf"], 32);
  EXPECT_NEAR(fabric["port_rate_Gbps"].get<double>(), 400.0 * 4096 / 4122, 1e-9);
  EXPECT_NEAR(fabric["bisection_GBps"].get<double>(), 512 * 50.0 * 4096 / 4122, 1e-6);
  EXPECT_DOUBLE_EQ(fabric["oversubscription"].get<double>(), 1.0);
  EXPECT_EQ(fabric["links"]["node_port"], 2048);
  EXPECT_EQ(fabric["links"]["leaf_spine"], 2048);
  EXPECT_TRUE(fabric["degraded_links"].empty());
  ASSERT_EQ(doc["links"].size(), fabric["links"]["total"].get<std::size_t>());
  const auto port =
      std::find_if(doc["links"].begin(), doc["links"].end(),
                   [](const nlohmann::json& l) { return l["name"] == "leaf0>n0.mlx5_0"; });
  ASSERT_NE(port, doc["links"].end());
  EXPECT_DOUBLE_EQ((*port)["latency_ns"].get<double>(), 155.0);  // switch 130 + cable 25
}

TEST(TopoFabric, DotIsOneBalancedDigraphWithCollapsedCables) {
  const std::string dot = run({"--system", "dgx-h100", "--nodes", "128", "--format", "dot"});
  EXPECT_EQ(dot.rfind("digraph", 0), 0U);
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < dot.size(); ++i) {
    if (dot[i] == '\\') {
      ++i;
    } else if (dot[i] == '"') {
      in_string = !in_string;
    } else if (!in_string && (dot[i] == '{' || dot[i] == '}')) {
      depth += dot[i] == '{' ? 1 : -1;
      ASSERT_GE(depth, 0) << "a '}' before its '{' at " << i;
    }
  }
  EXPECT_EQ(depth, 0);
  EXPECT_FALSE(in_string);
  // 4 units x 8 rails node-port edges and 32 leaves x 4 spines cable edges, each collapsed.
  EXPECT_NE(dot.find("\"leaf0\" -> \"su0\" [label=\"32 x 397.48 Gb/s\"]"), std::string::npos);
  EXPECT_NE(dot.find("\"spine3\" -> \"leaf31\" [label=\"8 x 397.48 Gb/s\"]"), std::string::npos);
  EXPECT_NE(dot.find("subgraph cluster_rail7"), std::string::npos);
  EXPECT_NE(dot.find("\"node.gpu7\" -> \"node.nvswitch\""), std::string::npos);
}

TEST(TopoFabric, NoNodesOrAnUnknownFormatIsBadInput) {
  std::ostringstream out;
  EXPECT_THROW(run_topo({"--system", "dgx-h100", "--nodes", "0"}, out), sim::InputError);
  EXPECT_THROW(run_topo({"--system", "dgx-h100", "--format", "svg"}, out), sim::InputError);
  const std::string path = write_scenario("topo_fabric_bad_fault.json", R"({
    "system": {"node": "dgx-h100", "nodes": 2, "faults": [{"link": "leaf9>spine0.0", "rate_scale": 0.5}]}})");
  EXPECT_THROW(run_topo({"--system", path}, out), sim::InputError);
}

}  // namespace
}  // namespace railsim::tools
