// File: tests/models/scenario/node_file_test.cpp
// Inline nodes: scenarios/inline-dgx-a100-2n.json, the dgx-a100 preset written out part by part,
// must build the preset's node exactly; every kind of bad description is rejected at the JSON
// pointer of the value at fault, with the message written out here by hand.
#include "models/scenario/node_file.hpp"

#include "models/hardware/node_presets.hpp"
#include "models/hardware/topo_matrix.hpp"
#include "models/scenario/system_file.hpp"
#include "sim/simulator.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace railsim::models::scenario {
namespace {

using Json = nlohmann::ordered_json;

NodeSpec shipped_inline_a100() {
  return load_system_file(std::string(RAILSIM_SOURCE_DIR) + "/scenarios/inline-dgx-a100-2n.json")
      .system.node;
}

TEST(NodeFile, InlineDgxA100PrintsThePresetsTopoMatrixCellByCell) {
  const TopoMatrix inline_matrix = topo_matrix(shipped_inline_a100());
  const TopoMatrix preset_matrix = topo_matrix(node_preset("dgx-a100"));
  ASSERT_EQ(inline_matrix.columns, preset_matrix.columns);
  ASSERT_EQ(inline_matrix.rows.size(), preset_matrix.rows.size());
  for (std::size_t r = 0; r < preset_matrix.rows.size(); ++r) {
    const TopoMatrix::Row& row = inline_matrix.rows[r];
    const TopoMatrix::Row& expected = preset_matrix.rows[r];
    EXPECT_EQ(row.name, expected.name);
    ASSERT_EQ(row.cells.size(), expected.cells.size()) << row.name;
    for (std::size_t c = 0; c < expected.cells.size(); ++c) {
      EXPECT_EQ(row.cells[c], expected.cells[c]) << row.name << " x " << preset_matrix.columns[c];
    }
    EXPECT_EQ(row.cpu_affinity, expected.cpu_affinity) << row.name;
    EXPECT_EQ(row.numa_affinity, expected.numa_affinity) << row.name;
  }
  EXPECT_EQ(inline_matrix.nic_legend, preset_matrix.nic_legend);
}

TEST(NodeFile, InlineDgxA100HoldsThePresetsRatesLinksAndRoles) {
  // The matrix shows distances only; rates, PCIe links and NIC roles decide what flows get.
  const NodeSpec node = shipped_inline_a100();
  const NodeSpec preset = node_preset("dgx-a100");
  ASSERT_EQ(node.sockets.size(), preset.sockets.size());
  for (std::size_t s = 0; s < preset.sockets.size(); ++s) {
    EXPECT_EQ(node.sockets[s].model, preset.sockets[s].model);
    EXPECT_DOUBLE_EQ(node.sockets[s].memory_bandwidth.bytes_per_s,
                     preset.sockets[s].memory_bandwidth.bytes_per_s);
  }
  EXPECT_DOUBLE_EQ(node.inter_socket.bytes_per_s, preset.inter_socket.bytes_per_s);
  ASSERT_EQ(node.switches.size(), preset.switches.size());
  for (std::size_t s = 0; s < preset.switches.size(); ++s) {
    EXPECT_EQ(node.switches[s].parent, preset.switches[s].parent) << "sw" << s;
    EXPECT_EQ(node.switches[s].uplink, preset.switches[s].uplink) << "sw" << s;
  }
  ASSERT_EQ(node.gpus.size(), preset.gpus.size());
  for (std::size_t g = 0; g < preset.gpus.size(); ++g) {
    EXPECT_EQ(node.gpus[g].model, preset.gpus[g].model);
    EXPECT_EQ(node.gpus[g].link, preset.gpus[g].link);
  }
  ASSERT_EQ(node.nics.size(), preset.nics.size());
  for (std::size_t i = 0; i < preset.nics.size(); ++i) {
    const Nic& nic = node.nics[i];
    const Nic& expected = preset.nics[i];
    EXPECT_EQ(nic.name, expected.name);
    EXPECT_EQ(nic.model, expected.model);
    EXPECT_EQ(nic.link, expected.link);
    EXPECT_DOUBLE_EQ(nic.port_rate.bytes_per_s, expected.port_rate.bytes_per_s);
    EXPECT_EQ(nic.role, expected.role) << nic.name;
    EXPECT_EQ(nic.gdr_capable, expected.gdr_capable);
    EXPECT_EQ(nic.processing_latency, expected.processing_latency);
  }
  EXPECT_EQ(node.nvlink.kind, preset.nvlink.kind);
  EXPECT_EQ(node.nvlink.links_per_gpu, preset.nvlink.links_per_gpu);
  EXPECT_EQ(node.nvlink.switch_count, preset.nvlink.switch_count);
  EXPECT_DOUBLE_EQ(node.nvlink.link_rate.bytes_per_s, preset.nvlink.link_rate.bytes_per_s);
  EXPECT_DOUBLE_EQ(node.nvlink.efficiency, preset.nvlink.efficiency);
}

// Two sockets of one NUMA node and one host bridge each; GPU0 and mlx5_0 below sw0, GPU1 and
// mlx5_1 below sw1; the GPUs bridged by NVLink.
Json small_node() {
  return Json::parse(R"({
    "name": "two-gpu",
    "sockets": [{"model": "cpu", "memory_bandwidth": "100GB/s"},
                {"model": "cpu", "memory_bandwidth": "100GB/s"}],
    "inter_socket": "16GB/s",
    "numa_nodes": [{"socket": 0, "cpus": "0-7"}, {"socket": 1, "cpus": "8-15"}],
    "host_bridges": [{"numa": 0}, {"numa": 1}],
    "switches": [{"parent": "hb0", "uplink": {"generation": 5, "lanes": 16}},
                 {"parent": "hb1", "uplink": {"generation": 5, "lanes": 16}}],
    "gpus": [{"model": "gpu", "parent": "sw0", "link": {"generation": 5, "lanes": 16}},
             {"model": "gpu", "parent": "sw1", "link": {"generation": 5, "lanes": 16}}],
    "nics": [{"name": "mlx5_0", "model": "nic", "parent": "sw0",
              "link": {"generation": 5, "lanes": 16}, "port_rate": "400Gbps"},
             {"name": "mlx5_1", "model": "nic", "parent": "sw1",
              "link": {"generation": 5, "lanes": 16}, "port_rate": "400Gbps"}],
    "nvlink": {"kind": "bridge", "links_per_gpu": 4, "link_rate": "25GB/s",
               "bridged_pairs": [[0, 1]]}
  })");
}

SystemFile read_node_in_system(const Json& node) {
  const Json doc = {{"system", {{"node", node}, {"nodes", 2}}}};
  return read_system(parse_json(doc.dump(), "inline.json").root());
}

// Reading a 2-node system of `node` fails at `pointer` with `message`.
void expect_error(const Json& node, const std::string& pointer, const std::string& message) {
  try {
    read_node_in_system(node);
    ADD_FAILURE() << "no error for " << node.dump();
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.json_pointer(), pointer) << e.what();
    EXPECT_EQ(e.message(), message) << e.what();
  }
}

TEST(NodeFile, SmallNodeBuildsASystem) {
  // GPU0 and mlx5_0 are both directly below sw0: PIX, so GPUDirect RDMA applies.
  const SystemFile file = read_node_in_system(small_node());
  EXPECT_EQ(file.system.node.name, "two-gpu");
  EXPECT_EQ(file.system.node.numa_nodes[1].id, 1);
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const System system(file.system, network);
  EXPECT_EQ(system.compute_nics().size(), 2U);
  EXPECT_EQ(system.nearest_compute_nic(0, 1), 1);
  EXPECT_TRUE(system.uses_gdr(0, 0, 0));
}

TEST(NodeFile, UnknownKeysSuggestTheClosestKnownOne) {
  Json node = small_node();
  node["swiches"] = node["switches"];
  node.erase("switches");
  try {
    read_node_in_system(node);
    ADD_FAILURE() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.json_pointer(), "/system/node/swiches");
    EXPECT_EQ(e.message().rfind(R"(unknown key "swiches" (did you mean "switches"?))", 0), 0U)
        << e.message();
  }
  node = small_node();
  node["nics"][1]["gdr_capabel"] = false;
  try {
    read_node_in_system(node);
    ADD_FAILURE() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.json_pointer(), "/system/node/nics/1/gdr_capabel");
    EXPECT_EQ(e.message().rfind(R"(unknown key "gdr_capabel" (did you mean "gdr_capable"?))", 0),
              0U)
        << e.message();
  }
}

TEST(NodeFile, WrongTypesNameWhatWasExpected) {
  Json node = small_node();
  node["gpus"] = Json::object();
  expect_error(node, "/system/node/gpus", "expected an array, got an object");
  node = small_node();
  node["nics"][0]["port_rate"] = 400;
  expect_error(node, "/system/node/nics/0/port_rate",
               R"(expected a bandwidth such as "400Gbps" or "50GB/s", got an integer (400))");
  expect_error(Json(3), "/system/node",
               R"(expected a node preset such as "dgx-h100" or an object describing the node, )"
               "got a number (3)");
}

TEST(NodeFile, OutOfRangeValuesAreRejectedWhereWritten) {
  Json node = small_node();
  node["gpus"][1]["link"]["lanes"] = 3;
  expect_error(node, "/system/node/gpus/1/link/lanes",
               "PCIe width x3, expected x1, x2, x4, x8 or x16");
  node = small_node();
  node["switches"][0]["uplink"]["generation"] = 7;
  expect_error(node, "/system/node/switches/0/uplink/generation",
               "expected an integer from 3 to 6, got 7");
  node = small_node();
  node["sockets"][0]["memory_bandwidth"] = "0GB/s";
  expect_error(node, "/system/node/sockets/0/memory_bandwidth", "expected a rate above zero");
  node = small_node();
  node["gpus"] = Json::array();
  expect_error(node, "/system/node/gpus", "expected at least one GPU");
}

TEST(NodeFile, TraysMakeOneNvlinkDomainThatNodesCountInTrays) {
  // small_node as two trays of one socket each, its GPUs on one NVLink switch: one domain, so
  // "nodes": 2 is one node; a GPU's c2c link replaces its PCIe link to the host.
  Json node = small_node();
  node["trays"] = 2;
  node["nvlink"] = Json::parse(
      R"({"kind": "switch", "links_per_gpu": 18, "link_rate": "50GB/s", "switch_count": 2})");
  node["gpus"][0]["c2c"] = "450GB/s";
  const SystemFile file = read_node_in_system(node);
  EXPECT_EQ(file.system.nodes, 1);
  EXPECT_EQ(file.system.node.trays, 2);
  EXPECT_DOUBLE_EQ(gpu_host_rate(file.system.node, 0).bytes_per_s, 450e9);
  node["trays"] = 3;
  expect_error(node, "/system/node/trays",
               "expected a number of trays that divides the 2 sockets (each tray's in turn) and an "
               "NVLink switch for their GPUs to share, got 3");
  node = small_node();
  node["trays"] = 2;
  expect_error(node, "/system/node/trays",
               "expected a number of trays that divides the 2 sockets (each tray's in turn) and an "
               "NVLink switch for their GPUs to share, got 2");
}

TEST(NodeFile, DanglingReferencesPointAtTheReference) {
  Json node = small_node();
  node["gpus"][1]["parent"] = "sw9";
  expect_error(node, "/system/node/gpus/1/parent", "no PCIe switch sw9 (the node has sw0 to sw1)");
  node = small_node();
  node["nics"][0]["parent"] = "hb2";
  expect_error(node, "/system/node/nics/0/parent", "no host bridge hb2 (the node has hb0 to hb1)");
  node = small_node();
  node["numa_nodes"][1]["socket"] = 2;
  expect_error(node, "/system/node/numa_nodes/1/socket",
               "no socket 2 (the node's sockets are 0 to 1)");
  node = small_node();
  node["host_bridges"][1]["numa"] = 5;
  expect_error(node, "/system/node/host_bridges/1/numa",
               "no NUMA node 5 (the node's NUMA ids are 0, 1)");
  node = small_node();
  node["nvlink"]["bridged_pairs"] = Json::parse("[[0, 1], [1, 2]]");
  expect_error(node, "/system/node/nvlink/bridged_pairs/1/1",
               "no GPU 2 (the node's GPUs are 0 to 1)");
}

TEST(NodeFile, ParentsAreHostBridgeOrSwitchNames) {
  Json node = small_node();
  node["gpus"][0]["parent"] = "switch0";
  expect_error(
      node, "/system/node/gpus/0/parent",
      R"(expected a PCIe parent such as "hb0" (host bridge 0) or "sw2" (PCIe switch 2), got "switch0")");
  node["gpus"][0]["parent"] = "sw01";
  expect_error(
      node, "/system/node/gpus/0/parent",
      R"(expected a PCIe parent such as "hb0" (host bridge 0) or "sw2" (PCIe switch 2), got "sw01")");
}

TEST(NodeFile, ASwitchThatIsItsOwnAncestorIsRejectedAtItsParent) {
  // sw0 -> sw2 -> sw1 -> sw0: a loop no device could climb out of to a host bridge.
  Json node = small_node();
  node["switches"][0]["parent"] = "sw2";
  node["switches"][1]["parent"] = "sw0";
  node["switches"].push_back({{"parent", "sw1"}, {"uplink", {{"generation", 5}, {"lanes", 16}}}});
  expect_error(node, "/system/node/switches/0/parent",
               "sw0 is its own ancestor: sw0 -> sw2 -> sw1 -> sw0");
  node = small_node();
  node["switches"][1]["parent"] = "sw1";
  expect_error(node, "/system/node/switches/1/parent", "sw1 is its own ancestor: sw1 -> sw1");
}

TEST(NodeFile, ANodeNeedsAComputeNic) {
  Json node = small_node();
  for (Json& nic : node["nics"]) {
    nic["role"] = "storage";
  }
  expect_error(
      node, "/system/node/nics",
      R"(no compute NIC: fabric traffic leaves a node through NICs with "role": "compute")");
}

TEST(NodeFile, NamesAndIdsAreUnique) {
  Json node = small_node();
  node["nics"][1]["name"] = "mlx5_0";
  expect_error(node, "/system/node/nics/1/name", R"(NIC name "mlx5_0" is nics/0's already)");
  node = small_node();
  node["numa_nodes"][0]["id"] = 1;
  expect_error(
      node, "/system/node/numa_nodes/1",
      R"(NUMA id 1 is numa_nodes/0's already (an element without "id" takes its position))");
  node = small_node();
  node["nvlink"]["bridged_pairs"] = Json::parse("[[0, 1], [1, 0]]");
  expect_error(node, "/system/node/nvlink/bridged_pairs/1",
               "GPUs 1 and 0 are bridged_pairs/0 already");
}

TEST(NodeFile, TwoSocketsNeedTheirLinksRate) {
  Json node = small_node();
  node.erase("inter_socket");
  expect_error(
      node, "/system/node",
      R"(missing key "inter_socket": the rate of the link between the sockets, such as "16GB/s")");
}

TEST(NodeFile, NicTransportIsTheFabrics) {
  Json node = small_node();
  node["nics"][0]["transport"] = "rocev2";
  expect_error(node, "/system/node/nics/0/transport",
               "a NIC's link layer is set for the whole fabric by /system/fabric/transport");
}

TEST(NodeFile, CalibratedNicParametersMayBeGiven) {
  Json node = small_node();
  node["nics"][0]["processing_latency"] = "700ns";
  node["nics"][0]["message_rate_per_qp"] = 3e6;
  const NodeSpec spec = read_node_in_system(node).system.node;
  EXPECT_EQ(spec.nics[0].processing_latency, sim::ns(700));
  EXPECT_DOUBLE_EQ(spec.nics[0].message_rate_per_qp, 3e6);
  EXPECT_EQ(spec.nics[1].processing_latency, Nic{}.processing_latency);
}

TEST(NodeFile, APresetWithAReplacedSectionKeepsTheRest) {
  // dgx-h100 with one compute NIC, not GDR-capable, below GPU0's switch: GPU0's traffic must
  // now bounce through host memory.
  const Json node = Json::parse(R"({"preset": "dgx-h100", "name": "dgx-h100-one-nic",
      "nics": [{"name": "mlx5_0", "model": "ConnectX-7", "parent": "sw0",
                "link": {"generation": 5, "lanes": 16}, "port_rate": "400Gbps",
                "gdr_capable": false}]})");
  const SystemFile file = read_node_in_system(node);
  const NodeSpec& spec = file.system.node;
  EXPECT_EQ(spec.name, "dgx-h100-one-nic");
  EXPECT_EQ(spec.gpus.size(), 8U);
  EXPECT_EQ(spec.switches.size(), 8U);
  ASSERT_EQ(spec.nics.size(), 1U);
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const System system(file.system, network);
  EXPECT_FALSE(system.uses_gdr(0, 0, 0));
}

TEST(NodeFile, APresetsKeptSectionsMustFitTheReplacedOnes) {
  // dgx-a100's GPU0 hangs below sw1; a switch list of one leaves it nowhere to go.
  Json node = Json::parse(R"({"preset": "dgx-a100",
      "switches": [{"parent": "hb0", "uplink": {"generation": 4, "lanes": 16}}]})");
  expect_error(node, "/system/node/switches",
               R"(the preset's GPU 0 hangs below sw1, which this list lacks (replace "gpus" too))");
  node = Json::parse(R"({"preset": "dgx-a100", "numa_nodes": [{"socket": 0, "cpus": "0-127"}]})");
  expect_error(
      node, "/system/node/numa_nodes",
      R"(the preset's host bridge hb0 is on NUMA node 3, which this list lacks (replace "host_bridges" too))");
  node = Json::parse(R"({"preset": "dgx-h10"})");
  expect_error(
      node, "/system/node/preset",
      "unknown node preset 'dgx-h10' (did you mean 'dgx-h100'?); known presets: "
      "dgx-a100, dgx-h100, hgx-h200, dgx-b200, dgx-b300, dgx-b300-xdr, gh200, gb200-nvl72, "
      "gb300-nvl72, a100-pcie-nvlink-bridge");
}

}  // namespace
}  // namespace railsim::models::scenario
