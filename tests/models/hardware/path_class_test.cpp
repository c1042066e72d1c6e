// File: tests/models/hardware/path_class_test.cpp
// Distance classes derived from hand-built PCIe trees, one case per class, and the NVLink rule.
#include "models/hardware/path_class.hpp"

#include <gtest/gtest.h>

namespace railsim::models {
namespace {

using Kind = PcieParent::Kind;

DeviceRef gpu(int i) { return {DeviceRef::Kind::kGpu, i}; }

DeviceRef nic(int i) { return {DeviceRef::Kind::kNic, i}; }

// Socket 0 with NUMA nodes 0 and 1; NUMA 0 has host bridges 0 and 1, NUMA 1 has bridge 2.
//   bridge 0 -> switch 0 -> { GPU0, NIC0, switch 1 -> GPU1 }, and GPU2 directly on bridge 0
//   bridge 1 -> switch 2 -> GPU3
//   bridge 2 -> GPU4
// So: GPU0-NIC0 PIX (one switch); GPU1-NIC0 PXB (switches 1 and 0); GPU2-NIC0 PHB (bridge 0);
// GPU3-NIC0 NODE (bridges 0 and 1 of NUMA 0); GPU4-NIC0 SYS (NUMA 1).
NodeSpec test_node() {
  NodeSpec node;
  node.numa_nodes = {{0, 0, "0-7"}, {1, 0, "8-15"}};
  node.host_bridges = {{0}, {0}, {1}};
  node.switches = {
      {{Kind::kHostBridge, 0}, {}}, {{Kind::kSwitch, 0}, {}}, {{Kind::kHostBridge, 1}, {}}};
  node.gpus = {{"g", {Kind::kSwitch, 0}, {}, std::nullopt},
               {"g", {Kind::kSwitch, 1}, {}, std::nullopt},
               {"g", {Kind::kHostBridge, 0}, {}, std::nullopt},
               {"g", {Kind::kSwitch, 2}, {}, std::nullopt},
               {"g", {Kind::kHostBridge, 2}, {}, std::nullopt}};
  Nic n;
  n.name = "mlx5_0";
  n.parent = {Kind::kSwitch, 0};
  node.nics = {n};
  return node;
}

TEST(PathClass, EachClassFollowsFromTheTree) {
  const NodeSpec node = test_node();
  EXPECT_EQ(pcie_path_class(node, nic(0), nic(0)), PathClass::kSelf);
  EXPECT_EQ(pcie_path_class(node, gpu(0), nic(0)), PathClass::kPix);
  EXPECT_EQ(pcie_path_class(node, gpu(1), nic(0)), PathClass::kPxb);
  EXPECT_EQ(pcie_path_class(node, gpu(2), nic(0)), PathClass::kPhb);
  EXPECT_EQ(pcie_path_class(node, gpu(3), nic(0)), PathClass::kNode);
  EXPECT_EQ(pcie_path_class(node, gpu(4), nic(0)), PathClass::kSys);
  EXPECT_EQ(pcie_path_class(node, nic(0), gpu(1)), PathClass::kPxb);  // symmetric
}

TEST(PathClass, NvlinkHidesThePcieClassOnlyForLinkedGpuPairs) {
  NodeSpec node = test_node();
  EXPECT_EQ(topo_label(node, gpu(0), gpu(4)), "SYS");
  node.nvlink = {NvlinkKind::kBridge, 4, {}, 0, {{0, 4}}};
  EXPECT_EQ(topo_label(node, gpu(0), gpu(4)), "NV4");
  EXPECT_EQ(topo_label(node, gpu(4), gpu(0)), "NV4");
  EXPECT_EQ(topo_label(node, gpu(1), gpu(4)), "SYS");
  EXPECT_EQ(topo_label(node, gpu(0), nic(0)), "PIX");  // NICs never use NVLink
  node.nvlink = {NvlinkKind::kSwitch, 18, {}, 4, {}};
  EXPECT_EQ(topo_label(node, gpu(1), gpu(3)), "NV18");
  EXPECT_EQ(topo_label(node, gpu(3), gpu(3)), "X");
}

TEST(PathClass, NumaOfADeviceIsThatOfItsHostBridge) {
  const NodeSpec node = test_node();
  EXPECT_EQ(numa_of(node, gpu(1)), 0);
  EXPECT_EQ(numa_of(node, gpu(4)), 1);
}

}  // namespace
}  // namespace railsim::models
