// File: tests/models/system/system_test.cpp
// Routes across a System: rails keep aligned traffic under one leaf, misaligned cabling sends
// it over the spine, ECMP spreads flows like balls into bins, a degraded link slows exactly the
// flows that cross it, and transfers without GPUDirect RDMA bounce through host memory.
#include "models/system/system.hpp"

#include "tests/link_named.hpp"
#include "tests/sanitizers.hpp"

#include "models/hardware/node_presets.hpp"
#include "models/hardware/pcie.hpp"
#include "sim/input_error.hpp"
#include "sim/simulator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace railsim::models {
namespace {

SystemSpec h100_system(int nodes, RailMapping rails = RailMapping::kAligned) {
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = nodes;
  spec.fabric.rails = rails;
  return spec;
}

bool crosses_spine(const System& system, const std::vector<sim::LinkId>& path) {
  return std::any_of(path.begin(), path.end(),
                     [&](sim::LinkId l) { return system.is_spine_link(l); });
}

TEST(System, AlignedSameRailTrafficNeverTouchesASpine) {
  // 16 DGX H100 in one scalable unit: NIC i of every node sits on rail i's one leaf.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(h100_system(16), net);
  for (int a = 0; a < 16; ++a) {
    for (int b = 0; b < 16; ++b) {
      for (int i = 0; a != b && i < 8; ++i) {
        EXPECT_FALSE(crosses_spine(system, system.route({a, i, i}, {b, i, i})))
            << "node " << a << " -> " << b << " rail " << i;
      }
    }
  }
}

TEST(System, NodeBuiltRunsOncePerNode) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  int built = 0;
  const System system(h100_system(5), net, [&built] { ++built; });
  EXPECT_EQ(built, 5);
}

TEST(System, MisalignedCablingSendsExactlyTheCrossRailPairsOverTheSpine) {
  // Per-node permutations: GPU i's NIC i lands on rail rail_of(n, i); a pair crosses the spine
  // exactly when its two NICs sit on different rails (one unit, so one leaf per rail).
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(h100_system(16, RailMapping::kMisaligned), net);
  int crossing = 0;
  for (int a = 0; a < 16; ++a) {
    for (int b = 0; b < 16; ++b) {
      for (int i = 0; a != b && i < 8; ++i) {
        const bool different_rails = system.rail_of(a, i) != system.rail_of(b, i);
        EXPECT_EQ(crosses_spine(system, system.route({a, i, i}, {b, i, i})), different_rails);
        crossing += different_rails ? 1 : 0;
      }
    }
  }
  EXPECT_GT(crossing, 0);
}

TEST(System, EcmpHashIsDeterministicAndSeedDependent) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec = h100_system(64);
  spec.fabric.nodes_per_leaf = 8;  // 8 units: rail traffic between units climbs to a spine
  const System first(spec, net);
  const System again(spec, net);
  spec.fabric.ecmp_seed = 99;
  const System reseeded(spec, net);
  int differ = 0;
  for (int b = 8; b < 64; ++b) {
    const auto path = first.route({0, 0, 0}, {b, 0, 0});
    const auto same = again.route({0, 0, 0}, {b, 0, 0});
    EXPECT_EQ(path.size(), same.size());
    for (std::size_t k = 0; k < path.size(); ++k) {
      // The two systems own different links; compare by name.
      EXPECT_EQ(net.link(path[k]).name, net.link(same[k]).name);
    }
    const auto other = reseeded.route({0, 0, 0}, {b, 0, 0});
    differ += net.link(path[4]).name != net.link(other[4]).name ? 1 : 0;
  }
  EXPECT_GT(differ, 0);
}

TEST(System, EcmpLoadOfKFlowsOnMPathsMatchesBallsIntoBins) {
  if (railsim::test::kUnderSanitizers) {
    GTEST_SKIP() << "a statistic over 4000 fabrics: checked in the optimised build; the other "
                    "tests route the same fabrics under the sanitizers";
  }
  // Two units of 8 nodes, 8 spines, one uplink per spine: a leaf pair has m = 8 equal-cost paths.
  // k = 8 flows, node i of unit 0 to node i of unit 1 on rail 0, each hashed onto an uplink.
  // Balls into bins: E[max flows on one uplink] = 2.597 for k = m = 8 (exact enumeration of the
  // multinomial; the balls-into-bins expectation for 8 into 8 is 2.59). Over 4000 seeds the mean
  // lands within 0.05.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec = h100_system(16);
  spec.fabric.nodes_per_leaf = 8;
  spec.fabric.spines = 8;
  double total = 0.0;
  constexpr int kSeeds = 4000;
  for (int seed = 0; seed < kSeeds; ++seed) {
    spec.fabric.ecmp_seed = static_cast<std::uint64_t>(seed);
    sim::Simulator s;
    sim::FlowNetwork n(s);
    const System system(spec, n);
    std::map<std::uint32_t, int> load;
    int top = 0;
    for (int i = 0; i < 8; ++i) {
      for (sim::LinkId l : system.route({i, 0, 0}, {8 + i, 0, 0})) {
        if (system.is_spine_link(l) && n.link(l).name.rfind("leaf", 0) == 0) {
          top = std::max(top, ++load[l.index]);
        }
      }
    }
    total += top;
  }
  EXPECT_NEAR(total / kSeeds, 2.597, 0.05);
}

TEST(System, DegradedLinkLowersExactlyTheFlowsThatCrossIt) {
  // 8 rail flows between two DGX H100 (GPU i -> GPU i over NIC i). Each is held by its PCIe
  // Gen5 x16 hop at 63.015 x 0.78 = 49.15 GB/s, below the NDR port's IB payload rate of
  // 50 x 4096 / 4122 = 49.68. Node 1's NIC 3 port is retrained at HDR: rail 3's flow drops to
  // that port's rate, the other seven stay at 49.15.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(h100_system(2), net);
  std::vector<sim::FlowId> flows;
  std::vector<std::vector<sim::LinkId>> paths;
  for (int i = 0; i < 8; ++i) {
    paths.push_back(system.route({0, i, i}, {1, i, i}));
    sim::FlowSpec spec;
    spec.path = paths.back();
    spec.size = sim::gb(100);
    flows.push_back(net.start_flow(std::move(spec)));
  }
  sim.run_until(sim::at(sim::us(1)));
  const double pcie = pcie_effective_bandwidth({5, 16}).bytes_per_s;
  for (sim::FlowId f : flows) {
    EXPECT_NEAR(net.rate(f).bytes_per_s, pcie, 1.0);
  }
  // Node 1's NIC 3 port from the leaf, retrained at HDR: 200 Gb/s x 4096 / (4096 + 26) of IB
  // payload = 24.84 GB/s.
  const auto degraded = std::find_if(paths[3].begin(), paths[3].end(), [&](sim::LinkId l) {
    return net.link(l).name.find(">n1.mlx5_5") != std::string::npos;
  });
  ASSERT_NE(degraded, paths[3].end());
  const double hdr = sim::gbps(200).bytes_per_s * 4096.0 / 4122.0;
  net.set_link_capacity(*degraded, sim::bytes_per_s(hdr));
  sim.run_until(sim::at(sim::us(2)));
  for (int i = 0; i < 8; ++i) {
    EXPECT_NEAR(net.rate(flows[static_cast<std::size_t>(i)]).bytes_per_s, i == 3 ? hdr : pcie, 1.0)
        << "rail " << i;
  }
}

TEST(System, TransfersWithoutGdrBounceThroughHostMemory) {
  // GDR off on node 1: node 0 sends GPU to NIC directly, node 1 receives through a bounce
  // buffer in its socket's memory (written, then read: the memory link twice).
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec = h100_system(2);
  spec.gdr_off_nodes = {1};
  const System system(spec, net);
  const auto path = system.route({0, 5, 5}, {1, 5, 5});
  std::vector<std::string> memory;
  for (sim::LinkId l : path) {
    if (system.is_host_memory_link(l)) {
      memory.emplace_back(net.link(l).name);
    }
  }
  // GPU5 is on socket 1 (NUMA 1).
  EXPECT_EQ(memory, (std::vector<std::string>{"n1.mem1", "n1.mem1"}));
  EXPECT_TRUE(system.uses_gdr(0, 5, 5));
  EXPECT_FALSE(system.uses_gdr(1, 5, 5));
}

TEST(System, BuildingTwoNodesOfSixteenKeepsTheirRoutesAndLinkNames) {
  // Nodes 3 and 12 of 16 in two units of 8 (leaf uplinks 1:1): built alone, their NIC-to-NIC
  // routes cross the same links, by name, as in the whole system, ECMP hash included.
  SystemSpec whole = h100_system(16);
  whole.fabric.nodes_per_leaf = 8;
  SystemSpec two = whole;
  two.built_nodes = {3, 12};
  sim::Simulator sim;
  sim::FlowNetwork whole_net(sim);
  sim::FlowNetwork two_net(sim);
  const System a(whole, whole_net);
  const System b(two, two_net);
  // Every node adds the same links (its PCIe tree, memory, NVLink and NIC ports), so the 14
  // left out take 14 times what one more adds.
  SystemSpec one = two;
  one.built_nodes = {3};
  sim::FlowNetwork one_net(sim);
  const System c(one, one_net);
  EXPECT_EQ(whole_net.link_count() - two_net.link_count(),
            14 * (two_net.link_count() - one_net.link_count()));
  EXPECT_TRUE(b.built(3));
  EXPECT_FALSE(b.built(4));
  const auto names = [](const sim::FlowNetwork& net, const std::vector<sim::LinkId>& path) {
    std::vector<std::string> out;
    for (const sim::LinkId l : path) {
      out.emplace_back(net.link(l).name);
    }
    return out;
  };
  for (int nic = 0; nic < 8; ++nic) {
    for (const int gpu : {kHostMemory, nic}) {
      const Endpoint from{3, nic, gpu};
      const Endpoint to{12, nic, gpu};
      EXPECT_EQ(names(two_net, b.route(from, to)), names(whole_net, a.route(from, to)));
      EXPECT_EQ(names(two_net, b.route(to, from)), names(whole_net, a.route(to, from)));
    }
  }
  two.built_nodes = {16};
  EXPECT_THROW(System(two, two_net), sim::InputError);
}

TEST(System, ANodeVariantWithANicOnTheOtherSocketChangesOnlyThatNode) {
  // Node 1's compute NIC 5 (mlx5_9, below GPU 5's switch on host bridge 5, socket 1) moved to
  // a root port of host bridge 0 (socket 0): GPU 5 is SYS from it, beyond the PXB GDR level, so
  // its sends stage in socket 1's memory and cross the socket link to the NIC; node 0 keeps the
  // design.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec = h100_system(2);
  NodeSpec moved = spec.node;
  const auto mlx5_9 = static_cast<std::size_t>(compute_nic_indices(moved)[5]);
  ASSERT_EQ(moved.nics[mlx5_9].name, "mlx5_9");
  moved.nics[mlx5_9].parent = {PcieParent::Kind::kHostBridge, 0};
  spec.node_variants[1] = moved;
  const System system(spec, net);
  EXPECT_TRUE(system.uses_gdr(0, 5, 5));
  EXPECT_FALSE(system.uses_gdr(1, 5, 5));
  EXPECT_EQ(system.nearest_compute_nic(0, 5), 5);
  // The nearest left to GPU 5 on node 1: NICs 4, 6 and 7 of its socket at NODE, the lowest first.
  EXPECT_EQ(system.nearest_compute_nic(1, 5), 4);
  std::vector<std::string> crossed;
  for (const sim::LinkId l : system.route({1, 5, 5}, {0, 5, 5})) {
    if (system.is_host_memory_link(l) || net.link(l).name.find("cpu") != std::string::npos) {
      crossed.emplace_back(net.link(l).name);
    }
  }
  EXPECT_EQ(crossed, (std::vector<std::string>{"n1.mem1", "n1.mem1", "n1.cpu1>cpu0"}));
  // The moved NIC hangs off host bridge 0 on node 1 only.
  EXPECT_EQ(pcie_link_names(system.node_spec(1), 1, "mlx5_9").first, "n1.mlx5_9>n1.hb0");
  EXPECT_EQ(pcie_link_names(system.node_spec(0), 0, "mlx5_9").first, "n0.mlx5_9>n0.sw5");
}

TEST(System, ANodeVariantMustKeepTheDesignsGpusAndComputeNics) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec = h100_system(2);
  NodeSpec fewer = spec.node;
  fewer.gpus.pop_back();
  spec.node_variants[1] = fewer;
  EXPECT_THROW(System(spec, net), sim::InputError);
  spec.node_variants.clear();
  spec.node_variants[2] = spec.node;  // no node 2
  EXPECT_THROW(System(spec, net), sim::InputError);
  NodeSpec renamed = spec.node;
  renamed.nics[0].name = "mlx5_99";
  spec.node_variants.clear();
  spec.node_variants[0] = renamed;
  EXPECT_THROW(System(spec, net), sim::InputError);
}

TEST(System, GpuBeyondTheGdrLevelStagesEvenWithGdrOn) {
  // a100-pcie-nvlink-bridge: GPU2 reaches NIC0 at NODE, beyond the default PXB level, so its
  // sends stage through socket 0's memory; GPU0 (PIX to NIC0) sends directly.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec;
  spec.node = node_preset("a100-pcie-nvlink-bridge");
  spec.nodes = 2;
  const System system(spec, net);
  EXPECT_TRUE(system.uses_gdr(0, 0, 0));
  EXPECT_FALSE(system.uses_gdr(0, 2, 0));
  auto memory_crossings = [&](const std::vector<sim::LinkId>& path) {
    return std::count_if(path.begin(), path.end(),
                         [&](sim::LinkId l) { return system.is_host_memory_link(l); });
  };
  EXPECT_EQ(memory_crossings(system.route({0, 0, 0}, {1, 0, 0})), 0);
  EXPECT_EQ(memory_crossings(system.route({0, 0, 2}, {1, 0, 0})), 2);
  EXPECT_EQ(memory_crossings(system.route({0, 0, 2}, {1, 0, 2})), 4);
}

TEST(System, BadCablingIsRejected) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec = h100_system(2, RailMapping::kExplicit);
  spec.fabric.cabling = {{0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6}};  // a NIC unconnected
  EXPECT_THROW(System(spec, net), sim::InputError);
  spec.fabric.cabling = {{0, 1, 2, 3, 4, 5, 6, 7}, {0, 0, 2, 3, 4, 5, 6, 7}};  // two on rail 0
  EXPECT_THROW(System(spec, net), sim::InputError);
  spec.fabric.cabling = {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 2, 3, 4, 5, 6, 7}};
  const System swapped(spec, net);
  EXPECT_EQ(swapped.rail_of(1, 0), 1);
  EXPECT_TRUE(crosses_spine(swapped, swapped.route({0, 0, 0}, {1, 0, 0})));
}

}  // namespace
}  // namespace railsim::models

namespace railsim::models {
namespace {

TEST(SystemInNode, NvswitchGpusMeetThroughTheirSwitchPorts) {
  // dgx-h100: GPU0 -> GPU5 crosses GPU0's port up and GPU5's port down, each
  // 18 links x 25 GB/s x 370/450 = 370 GB/s.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const System system(h100_system(1), net);
  const auto path = system.route_in_node(0, 0, 5);
  ASSERT_EQ(path.size(), 2U);
  EXPECT_EQ(net.link(path[0]).name, "n0.gpu0>n0.nvswitch");
  EXPECT_EQ(net.link(path[1]).name, "n0.nvswitch>n0.gpu5");
  EXPECT_NEAR(net.link(path[0]).capacity.in_gbytes_per_s(), 370.0, 1e-9);
}

TEST(SystemInNode, BridgedPairUsesItsBridgeAndOthersGoThroughPcieOrHostMemory) {
  // a100-pcie-nvlink-bridge: GPU0 -> GPU1 on their bridge (12 x 25 x 370/450 = 246.7 GB/s).
  // GPU0 -> GPU2 is NODE, beyond the default P2P level PXB: staged through socket 0's memory.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec;
  spec.node = node_preset("a100-pcie-nvlink-bridge");
  const System system(spec, net);
  const auto bridge = system.route_in_node(0, 0, 1);
  ASSERT_EQ(bridge.size(), 1U);
  EXPECT_NEAR(net.link(bridge[0]).capacity.in_gbytes_per_s(), 12 * 25 * 370.0 / 450.0, 1e-9);
  const auto staged = system.route_in_node(0, 0, 2);
  EXPECT_EQ(std::count_if(staged.begin(), staged.end(),
                          [&](sim::LinkId l) { return system.is_host_memory_link(l); }),
            2);
  // With P2P allowed up to NODE the same pair goes peer to peer: no host memory.
  spec.p2p_level = PathClass::kNode;
  sim::FlowNetwork net2(sim);
  const System p2p(spec, net2);
  const auto direct = p2p.route_in_node(0, 0, 2);
  EXPECT_EQ(std::count_if(direct.begin(), direct.end(),
                          [&](sim::LinkId l) { return p2p.is_host_memory_link(l); }),
            0);
}

}  // namespace
}  // namespace railsim::models

namespace railsim::models {
namespace {

TEST(SystemAdaptive, AdaptiveRoutingSpreadsEveryTransferOverEveryUplink) {
  // The balls-into-bins fabric (two units of 8, 8 spines, one uplink each): with adaptive routing
  // each of the 8 transfers takes 8 lanes, lane l on uplink l, so every uplink carries exactly
  // 8 lanes; and each transfer runs at its PCIe bound, 49.15 GB/s, since 8 x 49.15 fits in the
  // 8 uplinks' 8 x 49.68.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec = h100_system(16);
  spec.fabric.nodes_per_leaf = 8;
  spec.fabric.spines = 8;
  spec.fabric.routing = Routing::kAdaptive;
  const System system(spec, net);
  std::map<std::uint32_t, int> lanes_per_uplink;
  std::vector<std::vector<sim::FlowId>> transfers(8);
  for (int i = 0; i < 8; ++i) {
    const auto paths = system.routes({i, 0, kHostMemory}, {8 + i, 0, kHostMemory});
    ASSERT_EQ(paths.size(), 8U);
    for (const auto& path : paths) {
      for (sim::LinkId l : path) {
        if (system.is_spine_link(l) && net.link(l).name.rfind("leaf", 0) == 0) {
          ++lanes_per_uplink[l.index];
        }
      }
      sim::FlowSpec lane;
      lane.path = path;
      lane.size = sim::gb(1);
      transfers[static_cast<std::size_t>(i)].push_back(net.start_flow(std::move(lane)));
    }
  }
  ASSERT_EQ(lanes_per_uplink.size(), 8U);
  for (const auto& [link, lanes] : lanes_per_uplink) {
    EXPECT_EQ(lanes, 8) << net.link(sim::LinkId{link}).name;
  }
  sim.run_until(sim::at(sim::us(1)));
  for (const auto& transfer : transfers) {
    double rate = 0.0;
    for (sim::FlowId f : transfer) {
      rate += net.rate(f).bytes_per_s;
    }
    EXPECT_NEAR(rate, pcie_effective_bandwidth({5, 16}).bytes_per_s, 1e3);
  }
  // Under one leaf there is nothing to spread.
  EXPECT_EQ(system.routes({0, 0, kHostMemory}, {1, 0, kHostMemory}).size(), 1U);
}

}  // namespace
}  // namespace railsim::models

namespace railsim::models {
namespace {

TEST(SystemDown, RoutesAvoidCablesThatAreDown) {
  // Two units of 8, 4 spines, 8 uplinks per leaf (ports p to spine p % 4). With leaf0's two
  // cables up to spine 0 (ports 0 and 4) down, no route from leaf0 climbs to spine 0; every
  // route still arrives, through spines 1 to 3.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec = h100_system(16);
  spec.fabric.nodes_per_leaf = 8;
  System system(spec, net);
  system.set_link_down(test::link_named(net, "leaf0>spine0.0"));
  system.set_link_down(test::link_named(net, "leaf0>spine0.4"));
  for (int a = 0; a < 8; ++a) {
    for (std::uint64_t qp = 0; qp < 16; ++qp) {
      const auto path = system.route({a, 0, 0}, {8 + a, 0, 0}, qp);
      for (sim::LinkId l : path) {
        EXPECT_FALSE(system.is_link_down(l));
        EXPECT_NE(net.link(l).name.rfind("leaf0>spine0.", 0), 0U) << net.link(l).name;
      }
    }
  }
}

TEST(SystemDown, NoPathLeftOrANicPortDownIsAClearError) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  SystemSpec spec = h100_system(16);
  spec.fabric.nodes_per_leaf = 8;
  System system(spec, net);
  system.set_link_down(test::link_named(net, "n1.mlx5_0>leaf0"));
  EXPECT_THROW((void)system.route({1, 0, 0}, {9, 0, 0}), sim::InputError);
  EXPECT_NO_THROW((void)system.route({2, 0, 0}, {9, 0, 0}));
  for (int port = 0; port < 8; ++port) {
    system.set_link_down(test::link_named(
        net, "leaf0>spine" + std::to_string(port % 4) + "." + std::to_string(port)));
  }
  EXPECT_THROW((void)system.route({2, 0, 0}, {9, 0, 0}), sim::InputError);
  EXPECT_NO_THROW((void)system.route({2, 0, 0}, {3, 0, 0}));  // same leaf: no uplink needed
  EXPECT_THROW(system.set_link_down(test::link_named(net, "n0.gpu0>n0.sw0")), sim::InputError);
}

}  // namespace
}  // namespace railsim::models
