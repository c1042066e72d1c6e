// File: tests/models/system/fabric_summary_test.cpp
// The fabric summary of DGX H100 systems, each figure against a hand calculation, and the
// bisection closed form against a brute-force search over every cut of small fabrics.
#include "models/system/fabric_summary.hpp"

#include "models/hardware/node_presets.hpp"
#include "sim/simulator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

namespace railsim::models {
namespace {

// Hand figures shared by every DGX H100 case. 8 compute NICs (mlx5_0, 3, 4, 5, 6, 9, 10, 11)
// at 400 Gb/s on the default 400 Gb/s InfiniBand fabric, MTU 4096: wire efficiency
// 4096 / (4096 + 26) = 0.993692, so a port carries 50e9 B/s x 0.993692 = 49.6846 GB/s.
// Links inside one node: (8 switches + 8 GPUs + 12 NICs) x 2 PCIe directions + 8 GPUs x 2
// NVSwitch-port directions + 2 memory links + 2 socket-link directions = 76.
constexpr double kWire = 4096.0 / 4122.0;
constexpr double kPort = 50e9 * kWire;  // bytes/s
constexpr int kLinksPerNode = 76;
constexpr double kRelative = 1e-12;

FabricSummary h100_summary(int nodes,
                           double oversubscription = 1.0,
                           RailMapping rails = RailMapping::kAligned) {
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = nodes;
  spec.fabric.oversubscription = oversubscription;  // 32 nodes per leaf, 4 spines: the defaults
  spec.fabric.rails = rails;
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const System system(spec, network);
  return summarize(system, network);
}

void expect_rate(sim::Bandwidth actual, double bytes_per_s) {
  EXPECT_NEAR(actual.bytes_per_s, bytes_per_s, bytes_per_s * kRelative);
}

TEST(FabricSummary, TwoDgxH100ShareOneLeafPerRail) {
  // 2 nodes: 1 unit, 8 leaves (one per rail), 32 uplinks per leaf (32 / 1), 8 to each of 4
  // spines. Links: 2 x 2 nodes x 8 rails = 32 NIC ports, 2 x 8 x 32 = 512 leaf-spine, 2 x 76 =
  // 152 in nodes, 696 in all. Bisection: one node per side, its 8 ports cut: 8 x 49.68 =
  // 397.48 GB/s.
  const FabricSummary s = h100_summary(2);
  EXPECT_EQ(s.nodes, 2);
  EXPECT_EQ(s.rails, 8);
  EXPECT_EQ(s.nodes_per_leaf, 32);
  EXPECT_EQ(s.scalable_units, 1);
  EXPECT_EQ(s.leaves, 8);
  EXPECT_EQ(s.spines, 4);
  EXPECT_EQ(s.uplinks_per_leaf, 32);
  EXPECT_EQ(s.uplinks_to_spine, (std::vector<int>{8, 8, 8, 8}));
  EXPECT_DOUBLE_EQ(s.wire_efficiency, kWire);
  expect_rate(s.line_rate, 50e9);
  expect_rate(s.node_port_rate, kPort);
  expect_rate(s.port_rate, kPort);
  expect_rate(s.leaf_downlink, 32 * kPort);  // 1589.9 GB/s
  expect_rate(s.leaf_uplink, 32 * kPort);
  EXPECT_DOUBLE_EQ(s.oversubscription, 1.0);
  expect_rate(s.bisection, 8 * kPort);
  EXPECT_NEAR(s.bisection.in_gbytes_per_s(), 397.477, 1e-3);
  EXPECT_EQ(s.node_port_links, 32);
  EXPECT_EQ(s.leaf_spine_links, 512);
  EXPECT_EQ(s.node_links, 2 * kLinksPerNode);
  EXPECT_EQ(s.total_links, 696);
  EXPECT_TRUE(s.degraded.empty());
}

TEST(FabricSummary, SixteenDgxH100CutThroughHalfTheNicPorts) {
  // 16 nodes, still 1 unit: every leaf holds all 16, so the cheapest cut leaves the switches on
  // one side and cuts the ports of the 8 nodes on the other: 8 x 8 x 49.68 = 3179.8 GB/s.
  // Links: 2 x 16 x 8 = 256 ports, 512 leaf-spine, 16 x 76 = 1216 in nodes, 1984 in all.
  const FabricSummary s = h100_summary(16);
  EXPECT_EQ(s.scalable_units, 1);
  EXPECT_EQ(s.leaves, 8);
  EXPECT_EQ(s.uplinks_per_leaf, 32);
  expect_rate(s.bisection, 64 * kPort);
  EXPECT_NEAR(s.bisection.in_gbytes_per_s(), 3179.82, 1e-2);
  EXPECT_EQ(s.node_port_links, 256);
  EXPECT_EQ(s.leaf_spine_links, 512);
  EXPECT_EQ(s.node_links, 16 * kLinksPerNode);
  EXPECT_EQ(s.total_links, 1984);
}

TEST(FabricSummary, HundredTwentyEightDgxH100HaveFullBisectionAtOneToOne) {
  // 128 nodes / 32 per leaf = 4 units; 8 rails x 4 = 32 leaves, 32 uplinks each. Halves of 64
  // nodes = 2 units: per rail 2 x min(32 p, 32 f) = 64 p, x 8 rails = 512 x 49.68 =
  // 25438.5 GB/s, the same as cutting the 64 x 8 NIC ports of one half (full bisection).
  // Links: 2 x 128 x 8 = 2048 ports, 2 x 32 x 32 = 2048 leaf-spine, 128 x 76 = 9728 in nodes,
  // 13824 in all.
  const FabricSummary s = h100_summary(128);
  EXPECT_EQ(s.scalable_units, 4);
  EXPECT_EQ(s.leaves, 32);
  EXPECT_EQ(s.spines, 4);
  EXPECT_EQ(s.uplinks_per_leaf, 32);
  expect_rate(s.leaf_downlink, 32 * kPort);
  expect_rate(s.leaf_uplink, 32 * kPort);
  EXPECT_DOUBLE_EQ(s.oversubscription, 1.0);
  expect_rate(s.bisection, 512 * kPort);
  EXPECT_NEAR(s.bisection.in_gbytes_per_s(), 25438.5, 0.1);
  EXPECT_EQ(s.node_port_links, 2048);
  EXPECT_EQ(s.leaf_spine_links, 2048);
  EXPECT_EQ(s.node_links, 128 * kLinksPerNode);
  EXPECT_EQ(s.total_links, 13824);
}

TEST(FabricSummary, TwoToOneHalvesTheUplinksAndTheBisection) {
  // 2:1: 32 / 2 = 16 uplinks per leaf, 4 to each spine; uplink capacity 16 x 49.68 = 794.95 GB/s
  // against 1589.9 down: 2.0. Halves of 2 units: per rail 2 x min(32 p, 16 f) = 32 f, x 8 =
  // 256 x 49.68 = 12719.3 GB/s. Links: 2 x 32 x 16 = 1024 leaf-spine; 2048 + 1024 + 9728 = 12800.
  const FabricSummary s = h100_summary(128, 2.0);
  EXPECT_EQ(s.uplinks_per_leaf, 16);
  EXPECT_EQ(s.uplinks_to_spine, (std::vector<int>{4, 4, 4, 4}));
  expect_rate(s.leaf_uplink, 16 * kPort);
  EXPECT_DOUBLE_EQ(s.oversubscription, 2.0);
  EXPECT_DOUBLE_EQ(s.requested_oversubscription, 2.0);
  expect_rate(s.bisection, 256 * kPort);
  EXPECT_NEAR(s.bisection.in_gbytes_per_s(), 12719.3, 0.1);
  EXPECT_EQ(s.leaf_spine_links, 1024);
  EXPECT_EQ(s.total_links, 12800);
}

TEST(FabricSummary, TwoToOneInsideOneUnitLeavesTheBisectionAlone) {
  // 16 nodes at 2:1: the leaves still hold every node, so the cut stays in the NIC ports
  // (64 p) although each leaf has only 16 uplinks.
  const FabricSummary s = h100_summary(16, 2.0);
  EXPECT_EQ(s.uplinks_per_leaf, 16);
  EXPECT_DOUBLE_EQ(s.oversubscription, 2.0);
  expect_rate(s.bisection, 64 * kPort);
}

TEST(FabricSummary, TopOfRackCutsThroughTheRacksUplinks) {
  // The case above cabled top-of-rack: 16 nodes in one unit of 32, a leaf a rack of 4 whole
  // nodes (32 ports) with 16 uplinks. Halves of 8 nodes are two racks each: every leaf on side A
  // with the spines, side B's two racks cut their 16 uplinks each (cheaper than their nodes' 32
  // ports): 2 x 16 f = 32 f, half what the rails' ports give.
  const FabricSummary s = h100_summary(16, 2.0, RailMapping::kTopOfRack);
  EXPECT_EQ(s.uplinks_per_leaf, 16);
  expect_rate(s.bisection, 32 * kPort);
}

TEST(FabricSummary, ThreeToOneRoundsDownToWholePortsAndSaysSo) {
  // 32 / 3 = 10.67: 10 uplinks (3, 3, 2, 2 over 4 spines), so the ports imply 32 / 10 = 3.2:1.
  // 128 nodes: per rail 2 x 10 f = 20 f, x 8 = 160 x 49.68 = 7949.5 GB/s.
  const FabricSummary s = h100_summary(128, 3.0);
  EXPECT_EQ(s.uplinks_per_leaf, 10);
  EXPECT_EQ(s.uplinks_to_spine, (std::vector<int>{3, 3, 2, 2}));
  EXPECT_DOUBLE_EQ(s.oversubscription, 3.2);
  EXPECT_DOUBLE_EQ(s.requested_oversubscription, 3.0);
  expect_rate(s.bisection, 160 * kPort);
}

TEST(FabricSummary, SlowerNicsSetTheDownlinkRate) {
  // DGX A100: 200 Gb/s HDR NICs on the default 400 Gb/s fabric. Node ports run at 200 x
  // 0.993692 = 198.74 Gb/s (24.84 GB/s), cables at 397.48 Gb/s: downlink 32 x 24.84 against
  // uplink 32 x 49.68 is 0.5:1. 16 nodes, one unit: bisection 8 x 8 x 24.84 = 1589.9 GB/s.
  SystemSpec spec;
  spec.node = node_preset("dgx-a100");
  spec.nodes = 16;
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const System system(spec, network);
  const FabricSummary s = summarize(system, network);
  EXPECT_EQ(s.rails, 8);
  expect_rate(s.node_port_rate, kPort / 2);
  expect_rate(s.port_rate, kPort);
  EXPECT_DOUBLE_EQ(s.oversubscription, 0.5);
  expect_rate(s.bisection, 64 * kPort / 2);
}

TEST(FabricSummary, ListsTheLinksAFaultSlowedWithTheirDesignedRate) {
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = 4;
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const System system(spec, network);
  const std::optional<sim::LinkId> found = network.find_link("leaf0>spine0.0");
  ASSERT_TRUE(found);
  const sim::LinkId uplink = *found;
  network.set_link_capacity(uplink, sim::gbps(200));
  const FabricSummary s = summarize(system, network);
  ASSERT_EQ(s.degraded.size(), 1U);
  EXPECT_EQ(s.degraded[0].name, "leaf0>spine0.0");
  expect_rate(s.degraded[0].capacity, 25e9);
  expect_rate(s.degraded[0].designed, kPort);
  expect_rate(s.port_rate, kPort);  // the designed figures stay the design's
}

// A fabric link, one direction, between vertices: the nodes first, then the switches.
struct Edge {
  int a = 0;
  int b = 0;
  double capacity = 0.0;
};

// Brute force: every split of the nodes into floor(N/2) and ceil(N/2), every side for every
// switch; the least capacity crossing.
double least_cut(int nodes, int switches, const std::vector<Edge>& edges) {
  double best = std::numeric_limits<double>::infinity();
  for (std::uint32_t node_side = 0; node_side < (1U << nodes); ++node_side) {
    if (std::popcount(node_side) != nodes / 2) {
      continue;
    }
    for (std::uint32_t switch_side = 0; switch_side < (1U << switches); ++switch_side) {
      const std::uint64_t side = node_side | (static_cast<std::uint64_t>(switch_side) << nodes);
      double cut = 0.0;
      for (const Edge& e : edges) {
        if (((side >> e.a) & 1U) != ((side >> e.b) & 1U)) {
          cut += e.capacity;
        }
      }
      best = std::min(best, cut);
    }
  }
  return best;
}

// On the graph the System builds (leaf (rail, unit) = rail x units + unit; uplink j of each
// leaf to spine j % spines).
double brute_force_bisection(const LeafSpineShape& shape, int rails, int spines) {
  const int units = (shape.nodes + shape.nodes_per_leaf - 1) / shape.nodes_per_leaf;
  const int leaves = rails * units;
  std::vector<Edge> edges;
  const int links = shape.nodes * rails + leaves * shape.uplinks_per_leaf;
  edges.reserve(static_cast<std::size_t>(links));
  for (int n = 0; n < shape.nodes; ++n) {
    for (int r = 0; r < rails; ++r) {
      edges.push_back(
          {n, shape.nodes + r * units + n / shape.nodes_per_leaf, shape.node_port.bytes_per_s});
    }
  }
  for (int leaf = 0; leaf < leaves; ++leaf) {
    for (int j = 0; j < shape.uplinks_per_leaf; ++j) {
      edges.push_back(
          {shape.nodes + leaf, shape.nodes + leaves + j % spines, shape.uplink.bytes_per_s});
    }
  }
  return least_cut(shape.nodes, leaves + spines, edges);
}

TEST(FabricSummary, BisectionClosedFormMatchesEveryCutOfSmallFabrics) {
  // Capacities in whole units so sums are exact: a NIC port 2, a cable 1, 2 or 3 (cheaper,
  // equal to and dearer than a port), units of 1 to 3 nodes, some partial, 1 or 2 rails
  // sharing 1 or 2 spines.
  int cases = 0;
  for (int nodes = 1; nodes <= 6; ++nodes) {
    for (int per_leaf = 1; per_leaf <= 3; ++per_leaf) {
      for (int uplinks = 1; uplinks <= 3; ++uplinks) {
        for (double cable : {1.0, 2.0, 3.0}) {
          for (int rails = 1; rails <= 2; ++rails) {
            for (int spines = 1; spines <= 2; ++spines) {
              const int units = (nodes + per_leaf - 1) / per_leaf;
              if (rails * units + spines > 9) {
                continue;
              }
              const LeafSpineShape shape{nodes, per_leaf, uplinks, sim::Bandwidth{2.0},
                                         sim::Bandwidth{cable}};
              EXPECT_DOUBLE_EQ(rail_bisection(shape).bytes_per_s * rails,
                               brute_force_bisection(shape, rails, spines))
                  << nodes << " nodes, " << per_leaf << " per leaf, " << uplinks << " uplinks of "
                  << cable << ", " << rails << " rails, " << spines << " spines";
              ++cases;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(cases, 300);
}

TEST(FabricSummary, BisectionOfAPartialLastUnit) {
  // 96 nodes, 32 per leaf, 16 uplinks (2:1), p = f = 1: 3 units, halves of 48 = one whole unit
  // (min(32, 16) = 16) plus 16 nodes of another (min(16, 16 + 16) = 16): 32 per rail. With 80
  // nodes the third unit holds 16: halves of 40 = unit 0 (16) + 8 of the partial unit
  // (min(8, 8 + 16) = 8) = 24, cheaper than 40 ports or any other vertex.
  EXPECT_DOUBLE_EQ(
      rail_bisection({96, 32, 16, sim::Bandwidth{1.0}, sim::Bandwidth{1.0}}).bytes_per_s, 32.0);
  EXPECT_DOUBLE_EQ(
      rail_bisection({80, 32, 16, sim::Bandwidth{1.0}, sim::Bandwidth{1.0}}).bytes_per_s, 24.0);
  EXPECT_DOUBLE_EQ(
      rail_bisection({1, 32, 16, sim::Bandwidth{1.0}, sim::Bandwidth{1.0}}).bytes_per_s, 0.0);
}

// The three-tier graph the System builds (fabric_spec.hpp): pod q holds units q P .. q P + P - 1
// and spines q S .. q S + S - 1; uplink j of a leaf goes to spine j % S of its pod, uplink i of
// a spine to core i % cores.
double brute_force_three_tier(const ThreeTierShape& t, int cores) {
  const int units = (t.nodes + t.nodes_per_leaf - 1) / t.nodes_per_leaf;
  const int pods = (units + t.units_per_pod - 1) / t.units_per_pod;
  const int leaves = t.rails * units;
  const int spines = pods * t.spines_per_pod;
  std::vector<Edge> edges;
  const int links = t.nodes * t.rails + leaves * t.uplinks_per_leaf + spines * t.uplinks_per_spine;
  edges.reserve(static_cast<std::size_t>(links));
  for (int n = 0; n < t.nodes; ++n) {
    for (int r = 0; r < t.rails; ++r) {
      edges.push_back({n, t.nodes + r * units + n / t.nodes_per_leaf, t.node_port.bytes_per_s});
    }
  }
  for (int leaf = 0; leaf < leaves; ++leaf) {
    const int pod = leaf % units / t.units_per_pod;
    for (int j = 0; j < t.uplinks_per_leaf; ++j) {
      edges.push_back({t.nodes + leaf,
                       t.nodes + leaves + pod * t.spines_per_pod + j % t.spines_per_pod,
                       t.leaf_uplink.bytes_per_s});
    }
  }
  for (int spine = 0; spine < spines; ++spine) {
    for (int i = 0; i < t.uplinks_per_spine; ++i) {
      edges.push_back({t.nodes + leaves + spine, t.nodes + leaves + spines + i % cores,
                       t.spine_uplink.bytes_per_s});
    }
  }
  return least_cut(t.nodes, leaves + spines + cores, edges);
}

TEST(FabricSummary, ThreeTierBisectionMatchesEveryCutOfSmallFabrics) {
  // Whole-unit capacities (a NIC port 2; leaf-spine and spine-core cables 1 or 3, cheaper and
  // dearer than a port); units of 1 to 3 nodes, some partial; 1 to 3 units per pod, the last
  // pod perhaps short; 1 or 2 rails and spines per pod; 1 or 2 cables from a leaf to each spine;
  // 1 or 3 spine uplinks over 1 or 2 cores. Every third case of that grid with at most 10
  // switches, to keep the search short.
  int cases = 0;
  int seen = 0;
  for (int nodes = 2; nodes <= 6; ++nodes) {
    for (int per_leaf = 1; per_leaf <= 3; ++per_leaf) {
      for (int per_pod = 1; per_pod <= 3; ++per_pod) {
        for (int rails = 1; rails <= 2; ++rails) {
          for (int spines = 1; spines <= 2; ++spines) {
            for (int cables = 1; cables <= 2; ++cables) {
              for (int up = 1; up <= 3; up += 2) {
                for (int cores = 1; cores <= 2; ++cores) {
                  for (double f : {1.0, 3.0}) {
                    for (double g : {1.0, 3.0}) {
                      const int units = (nodes + per_leaf - 1) / per_leaf;
                      const int pods = (units + per_pod - 1) / per_pod;
                      if (rails * units + pods * spines + cores > 10 || seen++ % 3 != 0) {
                        continue;
                      }
                      const ThreeTierShape shape{nodes,
                                                 per_leaf,
                                                 per_pod,
                                                 rails,
                                                 cables * spines,
                                                 spines,
                                                 up,
                                                 sim::Bandwidth{2.0},
                                                 sim::Bandwidth{f},
                                                 sim::Bandwidth{g}};
                      EXPECT_DOUBLE_EQ(three_tier_bisection(shape).bytes_per_s,
                                       brute_force_three_tier(shape, cores))
                          << nodes << " nodes, " << per_leaf << " per leaf, " << per_pod
                          << " units per pod, " << rails << " rails, " << spines << " spines, "
                          << cables << " cables to each, " << up << " spine uplinks of " << g
                          << " over " << cores << " cores, leaf "
                          << "cables " << f;
                      ++cases;
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(cases, 200);
}

// The three-tier fabric of three_tier_test.cpp: 16 DGX H100, 4 nodes per leaf, 2 units per pod,
// 4 spines per pod, 4 cores, the given spine downlink : uplink ratio.
FabricSummary small_three_tier_summary(int nodes, double core_oversubscription) {
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = nodes;
  spec.fabric.tiers = 3;
  spec.fabric.nodes_per_leaf = 4;
  spec.fabric.units_per_pod = 2;
  spec.fabric.spines = 4;
  spec.fabric.cores = 4;
  spec.fabric.core_oversubscription = core_oversubscription;
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const System system(spec, network);
  return summarize(system, network);
}

TEST(FabricSummary, ThreeTiersAtTwoToOneAtTheCore) {
  // 16 nodes: 4 units, 2 pods, 32 leaves, 8 spines. A leaf: 4 uplinks, one to each spine of its
  // pod (1.00:1). A spine: 8 rails x 2 units x 1 = 16 downlinks (794.95 GB/s), 16 / 2 = 8
  // uplinks, 2 to each core (397.48 GB/s): 2.00:1. Links: 256 NIC ports, 256 leaf-spine,
  // 2 x 8 x 8 = 128 spine-core, 16 x 76 = 1216 in nodes, 1856 in all. Bisection: halves of one
  // pod each; the cheapest cut is one pod's 4 x 8 = 32 core uplinks, 32 x 49.68 = 1589.9 GB/s,
  // below its 64 NIC ports (and its leaves' 64 uplinks); half of two pods each would cut 64.
  const FabricSummary s = small_three_tier_summary(16, 2.0);
  EXPECT_EQ(s.tiers, 3);
  EXPECT_EQ(s.scalable_units, 4);
  EXPECT_EQ(s.units_per_pod, 2);
  EXPECT_EQ(s.pods, 2);
  EXPECT_EQ(s.leaves, 32);
  EXPECT_EQ(s.spines_per_pod, 4);
  EXPECT_EQ(s.spines, 8);
  EXPECT_EQ(s.cores, 4);
  EXPECT_EQ(s.uplinks_per_leaf, 4);
  EXPECT_EQ(s.uplinks_to_spine, (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(s.downlinks_per_spine, 16);
  EXPECT_EQ(s.uplinks_per_spine, 8);
  EXPECT_EQ(s.uplinks_to_core, (std::vector<int>{2, 2, 2, 2}));
  expect_rate(s.core_port_rate, kPort);
  expect_rate(s.spine_downlink, 16 * kPort);
  expect_rate(s.spine_uplink, 8 * kPort);
  EXPECT_DOUBLE_EQ(s.oversubscription, 1.0);
  EXPECT_DOUBLE_EQ(s.core_oversubscription, 2.0);
  EXPECT_DOUBLE_EQ(s.requested_core_oversubscription, 2.0);
  expect_rate(s.bisection, 32 * kPort);
  EXPECT_NEAR(s.bisection.in_gbytes_per_s(), 1589.9, 0.1);
  EXPECT_EQ(s.node_port_links, 256);
  EXPECT_EQ(s.leaf_spine_links, 256);
  EXPECT_EQ(s.spine_core_links, 128);
  EXPECT_EQ(s.node_links, 16 * kLinksPerNode);
  EXPECT_EQ(s.total_links, 1856);
}

TEST(FabricSummary, ThreeTiersAtOneToOneHaveFullBisection) {
  // 1:1 at the core: 16 uplinks per spine, so a pod's 4 x 16 = 64 core cables match its 64 NIC
  // ports: 16 nodes cut 8 x 8 = 64 ports. 12 nodes (pod 1 holds unit 2 only): halves of 6 cost
  // unit 2 on its own (its 4 nodes' 32 NIC ports, or as much in its leaves' uplinks) plus 2
  // nodes of a pod-0 unit (their 16 ports): 48 = 6 x 8, full bisection again.
  expect_rate(small_three_tier_summary(16, 1.0).bisection, 64 * kPort);
  EXPECT_DOUBLE_EQ(small_three_tier_summary(16, 1.0).core_oversubscription, 1.0);
  expect_rate(small_three_tier_summary(12, 1.0).bisection, 48 * kPort);
}

TEST(FabricSummary, TwoTierSummaryLeavesTheThirdTierEmpty) {
  const FabricSummary s = h100_summary(2);
  EXPECT_EQ(s.tiers, 2);
  EXPECT_EQ(s.cores, 0);
  EXPECT_EQ(s.uplinks_per_spine, 0);
  EXPECT_TRUE(s.uplinks_to_core.empty());
  EXPECT_EQ(s.spine_core_links, 0);
}

}  // namespace
}  // namespace railsim::models
