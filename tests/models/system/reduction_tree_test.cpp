// File: tests/models/system/reduction_tree_test.cpp
// SHARP reduction trees over a rail's NICs: the root is the lowest switch above every member's
// leaf (the leaf itself, a spine, a core), each rail's tree may take another spine, and every
// member reaches its leaf through its own NIC port. Expected shapes are derived by hand from the
// fabrics' layouts (fabric_spec.hpp).
#include "models/system/reduction_tree.hpp"

#include "models/hardware/node_presets.hpp"
#include "models/system/system.hpp"
#include "sim/input_error.hpp"
#include "sim/simulator.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace railsim::models {
namespace {

struct Bed {
  sim::Simulator simulator;
  sim::FlowNetwork network{simulator};
  System system;

  explicit Bed(const SystemSpec& spec) : system(spec, network) {}

  // NIC `nic` (and GPU `nic`, beside it on a DGX H100) of every node.
  std::vector<Endpoint> rail(int nic) const {
    std::vector<Endpoint> members;
    for (int n = 0; n < system.spec().nodes; ++n) {
      members.push_back({n, nic, nic});
    }
    return members;
  }

  std::string name(sim::LinkId link) const { return std::string(network.link(link).name); }
};

SystemSpec dgx_h100(int nodes, int nodes_per_leaf) {
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = nodes;
  spec.fabric.nodes_per_leaf = nodes_per_leaf;
  return spec;
}

// The switch a cable goes up to: "leaf3>spine1.5" -> "spine1".
std::string upper_switch(const std::string& cable) {
  const std::size_t from = cable.find('>') + 1;
  return cable.substr(from, cable.find('.', from) - from);
}

TEST(ReductionTree, OneLeafPerRailIsItsOwnRoot) {
  // 4 nodes under 32-node leaves: each rail's NICs share one leaf, which reduces them all.
  Bed bed(dgx_h100(4, 32));
  const ReductionTree tree = bed.system.reduction_tree(bed.rail(3), 3);
  EXPECT_EQ(tree.switches(), 1);
  EXPECT_EQ(tree.depth(), 0);
  EXPECT_EQ(tree.member_leaf, (std::vector<int>{0, 0, 0, 0}));
  for (int m = 0; m < 4; ++m) {
    const auto& up = tree.member_up[static_cast<std::size_t>(m)];
    const auto& down = tree.member_down[static_cast<std::size_t>(m)];
    ASSERT_FALSE(up.empty());
    ASSERT_FALSE(down.empty());
    // GPU 3's memory to its NIC over PCIe, then the NIC's port (compute NIC 3 is mlx5_5 on a
    // DGX H100); back down the other way.
    const int leaf = bed.system.leaf_of(m, 3);
    EXPECT_EQ(bed.name(up.back()), fmt::format("n{}.mlx5_5>leaf{}", m, leaf));
    EXPECT_EQ(bed.name(down.front()), fmt::format("leaf{}>n{}.mlx5_5", leaf, m));
  }
}

TEST(ReductionTree, TwoLeavesPerRailMeetAtASpineAndRailsSpreadOverTheSpines) {
  // 8 nodes under 4-node leaves: a rail's two leaves each send one cable up to a spine, the
  // tree's root; no link below a leaf is shared, so each carries a piece once. The default
  // fabric's 4 spines each reach every leaf, so the rails' trees take spines 0, 1, 2, 3 in turn.
  Bed bed(dgx_h100(8, 4));
  std::vector<std::string> roots;
  for (int rail = 0; rail < 4; ++rail) {
    const ReductionTree tree = bed.system.reduction_tree(bed.rail(rail), rail);
    ASSERT_EQ(tree.switches(), 3);
    EXPECT_EQ(tree.depth(), 1);
    EXPECT_EQ(tree.parent, (std::vector<int>{-1, 0, 0}));
    for (int k = 1; k < 3; ++k) {
      const sim::LinkId up = tree.up[static_cast<std::size_t>(k)];
      EXPECT_TRUE(bed.system.is_spine_link(up));
      EXPECT_EQ(bed.system.cable_of(up).second, tree.down[static_cast<std::size_t>(k)]);
      roots.push_back(upper_switch(bed.name(up)));
    }
    // Nodes 0-3 under one leaf, 4-7 under the other.
    EXPECT_EQ(tree.member_leaf[0], tree.member_leaf[3]);
    EXPECT_EQ(tree.member_leaf[4], tree.member_leaf[7]);
    EXPECT_NE(tree.member_leaf[0], tree.member_leaf[4]);
  }
  EXPECT_EQ(roots, (std::vector<std::string>{"spine0", "spine0", "spine1", "spine1", "spine2",
                                             "spine2", "spine3", "spine3"}));
}

TEST(ReductionTree, LeavesInTwoPodsMeetAtACore) {
  // Three tiers, 4 nodes, 2 per leaf, one unit per pod: a rail's two leaves are in pods 0 and 1,
  // so no spine lies above both and the root is a core, two switch hops above each leaf.
  SystemSpec spec = dgx_h100(4, 2);
  spec.fabric.tiers = 3;
  spec.fabric.units_per_pod = 1;
  spec.fabric.spines = 2;
  spec.fabric.cores = 2;
  Bed bed(spec);
  const ReductionTree tree = bed.system.reduction_tree(bed.rail(0), 0);
  EXPECT_EQ(tree.depth(), 2);
  // The core, then each walk down from it: a spine of pod 0 and its leaf, a spine of pod 1 and
  // its leaf; the spines' cables go up to the core, the leaves' to their spines.
  ASSERT_EQ(tree.switches(), 5);
  EXPECT_EQ(tree.parent, (std::vector<int>{-1, 0, 1, 0, 3}));
  EXPECT_TRUE(bed.system.is_core_link(tree.up[1]));
  EXPECT_TRUE(bed.system.is_spine_link(tree.up[2]));
  EXPECT_TRUE(bed.system.is_core_link(tree.up[3]));
  EXPECT_TRUE(bed.system.is_spine_link(tree.up[4]));
}

TEST(ReductionTree, AMemberWhosePortIsDownIsRefused) {
  SystemSpec spec = dgx_h100(2, 32);
  Bed bed(spec);
  bed.system.set_link_down(*bed.network.find_link("n1.mlx5_0>leaf0"));
  EXPECT_THROW((void)bed.system.reduction_tree(bed.rail(0), 0), sim::InputError);
}

}  // namespace
}  // namespace railsim::models
