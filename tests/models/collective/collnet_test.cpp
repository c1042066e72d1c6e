// File: tests/models/collective/collnet_test.cpp
// CollNet AllReduce over InfiniBand SHARP on dgx-h100 nodes: NCCL's chunks and model figures, the
// plans' bytes per NIC port and leaf uplink without the engine, the runs against closed forms at
// 8 B and 4 GiB, the two executions against each other, and what NCCL would not run. Every
// expected figure is derived by hand in the comments.
#include "collective_testbed.hpp"
#include "nccl_tuning_testbed.hpp"

#include "models/collective/collnet_plan.hpp"
#include "models/collective/non_ring_chunking.hpp"
#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace railsim::models {
namespace {

using testing::CollectiveBed;
using testing::kGen5GBps;
using testing::kH100PortGBps;
using testing::seconds;

// `nodes` dgx-h100 whose switches reduce, `nodes_per_leaf` to a leaf.
SystemSpec sharp_spec(int nodes, int nodes_per_leaf = 32) {
  SystemSpec spec = CollectiveBed::spec_of(nodes, "dgx-h100", "");
  spec.fabric.nodes_per_leaf = nodes_per_leaf;
  spec.fabric.sharp = SharpSpec{};
  return spec;
}

TEST(CollNetChunk, FollowsNcclsRule) {
  // Direct on 16 channels x 8 heads = 128 streams, depth 2: 512 KiB while the call has 128 whole
  // chunks per stream (from 8 GiB), halved towards 128 KiB below; then under 16 chunks per
  // stream to 64 KiB, and again to 32 KiB: 64 MiB is 4 chunks of 128 KiB per stream, 8 of
  // 64 KiB, 16 of 32 KiB.
  EXPECT_EQ(collnet_chunk(true, sim::gib(8), 16, 8, 8), sim::kib(512));
  EXPECT_EQ(collnet_chunk(true, sim::gib(4), 16, 8, 8), sim::kib(256));
  EXPECT_EQ(collnet_chunk(true, sim::gib(1), 16, 8, 8), sim::kib(128));
  EXPECT_EQ(collnet_chunk(true, sim::mib(64), 16, 8, 8), sim::kib(32));
  EXPECT_EQ(collnet_chunk(true, sim::bytes(8), 16, 8, 8), sim::kib(32));
  // Chain on 16 channels, depth 8 (its chain's GPUs): 256 KiB while 512 chunks per channel
  // (4 GiB), 128 KiB below; under 64 to 64 KiB (64 MiB has 32 of 128 KiB); under 8 to 32 KiB.
  EXPECT_EQ(collnet_chunk(false, sim::gib(4), 16, 1, 8), sim::kib(256));
  EXPECT_EQ(collnet_chunk(false, sim::gib(1), 16, 1, 8), sim::kib(128));
  EXPECT_EQ(collnet_chunk(false, sim::mib(64), 16, 1, 8), sim::kib(64));
  EXPECT_EQ(collnet_chunk(false, sim::bytes(8), 16, 1, 8), sim::kib(32));
}

TEST(CollNetTuning, NcclsLatencyAndDirectBandwidth) {
  // Latency (nccl:src/graph/tuning.cc), 8 GPUs per node: Direct 2 x (3.7 + 7 x 0.4) + 31 =
  // 44.0 us; Chain 2 x 7 x 2.8 + 30 = 69.2 us, whatever the node count. Direct's graph: a
  // channel per head, 8 at 48 GB/s (the fastest SM90 speed a 50 GB/s NIC carries), one GPU per
  // head: busBw 8 x 48 x 0.85 = 326.4 GB/s, algorithm bandwidth half: 163.2 GB/s.
  TuningTopology topology = testing::dgx_h100(4);
  topology.collnet = true;
  const std::optional<AlgoCost> direct =
      algo_cost(topology, CollectiveOp::kAllReduce, Algorithm::kCollNetDirect, Protocol::kSimple);
  ASSERT_TRUE(direct);
  EXPECT_NEAR(direct->latency_us, 44.0, 1e-9);
  EXPECT_NEAR(direct->bandwidth_GBps, 163.2, 1e-9);
  const std::optional<AlgoCost> chain =
      algo_cost(topology, CollectiveOp::kAllReduce, Algorithm::kCollNetChain, Protocol::kSimple);
  ASSERT_TRUE(chain);
  EXPECT_NEAR(chain->latency_us, 69.2, 1e-9);
}

TEST(CollNetTuning, OffWhereNcclHasItOff) {
  TuningTopology topology = testing::dgx_h100(4);
  const auto enabled = [&](Algorithm a, CollectiveOp op = CollectiveOp::kAllReduce,
                           Protocol p = Protocol::kSimple) {
    return algo_cost(topology, op, a, p).has_value();
  };
  // No SHARP (NCCL_COLLNET_ENABLE unset, or switches that do not reduce).
  EXPECT_FALSE(enabled(Algorithm::kCollNetDirect));
  EXPECT_FALSE(enabled(Algorithm::kCollNetChain));
  topology.collnet = true;
  EXPECT_TRUE(enabled(Algorithm::kCollNetDirect));
  EXPECT_TRUE(enabled(Algorithm::kCollNetChain));
  // AllReduce only, Simple only.
  EXPECT_FALSE(enabled(Algorithm::kCollNetChain, CollectiveOp::kAllGather));
  EXPECT_FALSE(enabled(Algorithm::kCollNetDirect, CollectiveOp::kAllReduce, Protocol::kLl128));
  // Direct needs an NVSwitch; Chain does not.
  topology.nvswitch = false;
  EXPECT_FALSE(enabled(Algorithm::kCollNetDirect));
  EXPECT_TRUE(enabled(Algorithm::kCollNetChain));
  // From NCCL_COLLNET_NODE_THRESHOLD = 2 nodes, at most 8 GPUs per node.
  topology.nodes = 1;
  EXPECT_FALSE(enabled(Algorithm::kCollNetChain));
  topology.nodes = 4;
  topology.gpus_per_node = 16;
  EXPECT_FALSE(enabled(Algorithm::kCollNetChain));
}

// Payload bytes each link carries over the SHARP side of `plan` (the edges at a switch), both
// directions: every edge carries its tree's bytes once.
std::map<sim::LinkId, std::int64_t> sharp_loads(const TreePlan& plan) {
  std::map<sim::LinkId, std::int64_t> loads;
  for (int c = 0; c < plan.channels(); ++c) {
    const ReductionTree& sharp = *plan.switches_of(c);
    const RankTree& tree = plan.trees[static_cast<std::size_t>(c)];
    const std::int64_t bytes = plan.channel_bytes(c).count;
    const auto add = [&](const std::vector<sim::LinkId>& links) {
      for (const sim::LinkId link : links) {
        loads[link] += bytes;
      }
    };
    for (int v = 0; v < plan.vertices(c); ++v) {
      const int parent = tree.parent[static_cast<std::size_t>(v)];
      if (v >= plan.ranks()) {
        if (parent >= 0) {
          add({sharp.up[static_cast<std::size_t>(v - plan.ranks())],
               sharp.down[static_cast<std::size_t>(v - plan.ranks())]});
        }
      } else if (parent >= plan.ranks()) {
        const auto node = static_cast<std::size_t>(plan.comm.node_of(v));
        add(sharp.member_up[node]);
        add(sharp.member_down[node]);
      }
    }
  }
  return loads;
}

TEST(CollNetPlan, EveryNicPortAndLeafUplinkCarriesAnEighthEachWay) {
  // 64 nodes, 32 to a leaf: each rail has two leaves under a spine. 64 MiB over 16 channels:
  // Direct cuts each channel's 4 MiB into 8 heads' 512 KiB trees, Chain runs a tree per channel
  // headed by GPU c mod 8. Either way NIC k's trees carry S / 8 = 8 MiB, up its port and down,
  // and so does each of its rail's two leaf-to-spine cables, whatever the 32 nodes under each:
  // the switches sum what comes up. A ring would send 2 x 511/512 S through every NIC.
  CollectiveBed bed(sharp_spec(64), 8);
  const std::int64_t s = sim::mib(64).count;
  for (const Algorithm algorithm : {Algorithm::kCollNetDirect, Algorithm::kCollNetChain}) {
    const TreePlan plan = make_collnet_plan(*bed.system, algorithm, sim::bytes(s), bed.comm, 16, 8);
    EXPECT_EQ(plan.channels(), algorithm == Algorithm::kCollNetDirect ? 128 : 16);
    const std::map<sim::LinkId, std::int64_t> loads = sharp_loads(plan);
    int ports = 0;
    int uplinks = 0;
    for (const auto& [link, bytes] : loads) {
      if (bed.system->is_node_port_link(link)) {
        ++ports;
        EXPECT_EQ(bytes, s / 8) << bed.network.link(link).name;
      } else if (bed.system->is_spine_link(link)) {
        ++uplinks;
        EXPECT_EQ(bytes, s / 8) << bed.network.link(link).name;
      }
    }
    EXPECT_EQ(ports, 64 * 8 * 2);   // every node's 8 ports, both ways
    EXPECT_EQ(uplinks, 8 * 2 * 2);  // 8 rails' two leaves, up and down
  }
}

TEST(CollNetPlan, RefusesWhatItCannotRun) {
  CollectiveBed bed(sharp_spec(2), 8);
  EXPECT_THROW(make_collnet_plan(*bed.system, Algorithm::kCollNetChain, sim::mib(1),
                                 Communicator{1, 8}, 16, 1),
               sim::InputError);
  EXPECT_THROW(
      make_collnet_plan(*bed.system, Algorithm::kCollNetChain, sim::mib(1), bed.comm, 0, 1),
      sim::InputError);
}

TEST(CollNetRun, At4GiBBothAreBoundByTheNvSwitchPorts) {
  // 4 GiB on 4 dgx-h100 nodes under one leaf per rail. Direct: every GPU sends each other head
  // its piece (7/8 S in all) and, as a head, the sum to its 7 peers (7/8 S): 1.75 S up its
  // NVSwitch port and as much down, at 370 GB/s: 20.31 ms. Chain: a GPU sends up and down the
  // chains it is inside of, one way only at its chain's head and tail: over 16 channels of S / 16,
  // (32 - 4) x S / 16 = 1.75 S each way, the same. Each head's NIC moves S / 8 each way over
  // its Gen5 x16 GPU-NIC path (49.15 GB/s): 10.92 ms. So the ports bound both: busbw at most
  // 2 x 31/32 x S / 20.31 ms = 409.6 GB/s; the fill of 256 KiB chunks adds under 3%.
  const double s = 4294967296.0;
  const double bound = 1.75 * s / (kH100PortGBps * 1e9);
  EXPECT_GT(bound, s / 8.0 / (kGen5GBps * 1e9));
  for (const Algorithm algorithm : {Algorithm::kCollNetDirect, Algorithm::kCollNetChain}) {
    CollectiveBed bed(sharp_spec(4), 8);
    const CollectiveResult r = bed.run(CollectiveOp::kAllReduce, sim::gib(4), algorithm,
                                       std::nullopt, std::nullopt, Execution::kPipelined);
    EXPECT_EQ(r.algorithm, algorithm);
    EXPECT_GE(seconds(r.time), bound) << algorithm_name(algorithm);
    EXPECT_LT(seconds(r.time), 1.03 * bound) << algorithm_name(algorithm);
  }
}

TEST(CollNetRun, OneGpuPerNodeSendsTheBufferOnceThroughItsNicWhereARingSendsItTwice) {
  // 10 nodes x 1 GPU, 1 GiB: each node's one head sends S up its port and receives S back, over
  // its Gen5 x16 GPU-NIC path at 49.15 GB/s: 21.85 ms, busbw 2 x 9/10 x S / t = 88.5 GB/s. A ring
  // sends 2 x 9/10 S through every NIC: busbw at most 49.15. Chain and Direct alike (Direct's
  // star has no other GPU).
  const double s = 1073741824.0;
  const double bound = s / (kGen5GBps * 1e9);
  for (const Algorithm algorithm : {Algorithm::kCollNetDirect, Algorithm::kCollNetChain}) {
    CollectiveBed bed(sharp_spec(10), 1);
    const CollectiveResult r = bed.run(CollectiveOp::kAllReduce, sim::gib(1), algorithm,
                                       std::nullopt, std::nullopt, Execution::kPipelined);
    EXPECT_GE(seconds(r.time), bound) << algorithm_name(algorithm);
    EXPECT_LT(seconds(r.time), 1.01 * bound) << algorithm_name(algorithm);
  }
  CollectiveBed bed(sharp_spec(10), 1);
  const CollectiveResult ring = bed.run(CollectiveOp::kAllReduce, sim::gib(1), Algorithm::kRing,
                                        Protocol::kSimple, std::nullopt, Execution::kPipelined);
  EXPECT_LE(ring.busbw_GBps, kGen5GBps);
}

TEST(CollNetRun, SmallAllReduceTakesNcclsCollNetLatency) {
  // 8 B: one piece up a node's chain or star to its head, up the SHARP tree, down it and back.
  // The holds add to NCCL's own CollNet latencies (44.0 us Direct, 69.2 us Chain: above), on one
  // leaf per rail (4 nodes) and on two under a spine (8 nodes, 4 to a leaf) alike; the links'
  // own latency adds at most 3 us (PCIe, port, cables and two switch hops each way).
  for (const int nodes_per_leaf : {32, 4}) {
    for (const auto& [algorithm, floor_us] :
         {std::pair{Algorithm::kCollNetDirect, 44.0}, std::pair{Algorithm::kCollNetChain, 69.2}}) {
      for (const Execution execution : {Execution::kChunk, Execution::kPipelined}) {
        CollectiveBed bed(sharp_spec(8, nodes_per_leaf), 8);
        const CollectiveResult r = bed.run(CollectiveOp::kAllReduce, sim::bytes(8), algorithm,
                                           std::nullopt, std::nullopt, execution);
        EXPECT_GE(seconds(r.time), floor_us * 1e-6) << algorithm_name(algorithm);
        EXPECT_LT(seconds(r.time), (floor_us + 3.0) * 1e-6) << algorithm_name(algorithm);
      }
    }
  }
}

TEST(CollNetRun, EachReducingSwitchAddsItsLatencyOnce) {
  // 8 B on 8 nodes, 4 to a leaf: a piece goes up through its leaf and the spine above and comes
  // back, two switches that each add sharp.latency once: 1 us each, 2 us in all, whatever else
  // the holds carry.
  const auto time_with = [](sim::Duration latency) {
    SystemSpec spec = sharp_spec(8, 4);
    spec.fabric.sharp->latency = latency;
    CollectiveBed bed(spec, 8);
    return seconds(bed.run(CollectiveOp::kAllReduce, sim::bytes(8), Algorithm::kCollNetChain,
                           std::nullopt, std::nullopt, Execution::kChunk)
                       .time);
  };
  EXPECT_NEAR(time_with(sim::us(1)) - time_with(sim::Duration{}), 2e-6, 1e-9);
}

TEST(CollNetRun, ChunkAccurateAndPipelinedAgree) {
  for (const Algorithm algorithm : {Algorithm::kCollNetDirect, Algorithm::kCollNetChain}) {
    CollectiveBed chunk(sharp_spec(4), 8);
    CollectiveBed pipelined(sharp_spec(4), 8);
    const double a = seconds(chunk
                                 .run(CollectiveOp::kAllReduce, sim::mib(64), algorithm,
                                      std::nullopt, std::nullopt, Execution::kChunk)
                                 .time);
    const double b = seconds(pipelined
                                 .run(CollectiveOp::kAllReduce, sim::mib(64), algorithm,
                                      std::nullopt, std::nullopt, Execution::kPipelined)
                                 .time);
    EXPECT_NEAR(b, a, 0.02 * a) << algorithm_name(algorithm);
  }
}

TEST(CollNetRun, NcclWouldNotRunItWithoutSharp) {
  CollectiveBed bed(4, 8);
  EXPECT_THROW(bed.run(CollectiveOp::kAllReduce, sim::mib(1), Algorithm::kCollNetDirect,
                       std::nullopt, std::nullopt),
               sim::InputError);
  CollectiveBed sharp(sharp_spec(4), 8);
  EXPECT_THROW(sharp.run(CollectiveOp::kAllGather, sim::mib(1), Algorithm::kCollNetChain,
                         std::nullopt, std::nullopt),
               sim::InputError);
}

}  // namespace
}  // namespace railsim::models
