// File: tests/models/collective/collective_run_test.cpp
// Collectives on preset systems against closed forms derived by hand, the two executions
// against each other, and the physics every result must obey.
#include "models/collective/collective_run.hpp"

#include "models/fabric/wire.hpp"
#include "models/hardware/node_presets.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace railsim::models {
namespace {

// Per direction, GB/s: NVLink 4 port of an H100, 18 x 25 GB/s at NCCL's 370/450 efficiency;
// a PCIe Gen5 x16 link, 32 GT/s x 16 x 128/130 / 8 = 63.015 GB/s at 0.78 (kPcieEfficiency).
constexpr double kH100PortGBps = 370.0;
constexpr double kGen5GBps = 32.0 * 16.0 * 128.0 / 130.0 / 8.0 * 0.78;

struct Testbed {
  sim::Simulator simulator;
  sim::FlowNetwork network{simulator};
  std::unique_ptr<System> system;

  explicit Testbed(int nodes,
                   const char* preset = "dgx-h100",
                   RailMapping rails = RailMapping::kAligned,
                   double oversubscription = 1.0,
                   int nodes_per_leaf = 32,
                   Routing routing = Routing::kEcmp) {
    SystemSpec spec;
    spec.node = node_preset(preset);
    spec.nodes = nodes;
    spec.fabric.rails = rails;
    spec.fabric.oversubscription = oversubscription;
    spec.fabric.nodes_per_leaf = nodes_per_leaf;
    spec.fabric.routing = routing;
    system = std::make_unique<System>(spec, network);
  }

  CollectiveResult run(CollectiveRequest request) {
    if (request.comm.nodes == 1 && request.comm.gpus_per_node == 1) {
      request.comm = {system->spec().nodes, static_cast<int>(system->spec().node.gpus.size())};
    }
    return run_collective(*system, network, simulator, request);
  }
};

CollectiveRequest ring(CollectiveOp op, sim::Bytes size, Protocol protocol, int channels) {
  CollectiveRequest request;
  request.op = op;
  request.size = size;
  request.algorithm = Algorithm::kRing;
  request.protocol = protocol;
  request.channels = channels;
  return request;
}

double seconds(sim::Duration d) { return sim::to_seconds(d); }

TEST(CollectiveRun, OneNodeRingAllReduceMovesAtTheNvlinkPortRate) {
  // 8 H100s on NVSwitch, 16 channels, 1 GiB, Simple: each GPU sends 2 x 7/8 x 1 GiB through its
  // 370 GB/s port: 1.75 x 2^30 / 370e9 = 5.0786 ms, plus 8.4 us of base latency; the 3.4 us
  // hop latencies hide behind 1 MiB slices that take 45 us each.
  Testbed bed(1);
  const CollectiveResult r =
      bed.run(ring(CollectiveOp::kAllReduce, sim::gib(1), Protocol::kSimple, 16));
  const double expected = 1.75 * 1073741824.0 / (kH100PortGBps * 1e9) + 8.4e-6;
  EXPECT_NEAR(seconds(r.time), expected, 0.01 * expected);
  EXPECT_NEAR(r.busbw_GBps, kH100PortGBps, 0.01 * kH100PortGBps);
  EXPECT_DOUBLE_EQ(r.algbw_GBps, 1073741824.0 / seconds(r.time) / 1e9);
  EXPECT_DOUBLE_EQ(r.busbw_GBps, r.algbw_GBps * 2.0 * 7.0 / 8.0);
}

TEST(CollectiveRun, OneNodeRingAllReduceOnB200MovesAtTheNvlink5PortRate) {
  // dgx-b200: a GPU's NVLink 5 port is 18 links x 50 GB/s at NCCL's SM100 rate of 40.1 per link
  // (docs/hardware.md): 721.8 GB/s. 8 GiB, 32 channels, Simple: 2 x 7/8 x 8 GiB through it
  // takes 20.8 ms, where the base latency and hop latencies are lost.
  constexpr double kB200PortGBps = 18 * 40.1;
  Testbed bed(1, "dgx-b200");
  const CollectiveResult r =
      bed.run(ring(CollectiveOp::kAllReduce, sim::gib(8), Protocol::kSimple, 32));
  EXPECT_NEAR(r.busbw_GBps, kB200PortGBps, 0.01 * kB200PortGBps);
}

TEST(CollectiveRun, TwoNodeRingAllReduceIsBoundByEightGdrPcieLinks) {
  // 2 dgx-h100 nodes, 16 ranks, 16 channels, Simple. Every channel leaves each node once, two
  // channels per NIC, each GPU-NIC pair behind its own Gen5 switch at 49.15 GB/s: 24.58 GB/s
  // per channel. NVLink is looser: a GPU's port carries the 14 channels it does not leave by,
  // 370/14 = 26.4 GB/s each. The links move 1 GiB at 16 x 24.58 = 8 x 49.15 = 393.2 GB/s of
  // busbw in 2 x 15/16 x 2^30 / 393.2e9 = 5.12 ms. Each channel's 64 MiB make 2 loops of 2 MiB
  // pieces, 30 steps each, and after every step but the last a connection between the nodes
  // posts for NCCL's Simple network overhead, 3 us: 59 x 3 = 177 us; plus 8.4 us base latency.
  Testbed bed(2);
  const CollectiveResult r =
      bed.run(ring(CollectiveOp::kAllReduce, sim::gib(1), Protocol::kSimple, 16));
  const double drain = 2.0 * 15.0 / 16.0 * 1073741824.0 / (8.0 * kGen5GBps * 1e9);
  const double expected = drain + 59 * 3e-6 + 8.4e-6;
  EXPECT_NEAR(seconds(r.time), expected, 0.01 * expected);
  const double bus = 2.0 * 15.0 / 16.0 * 1073741824.0 / expected / 1e9;  // 379.5 GB/s
  EXPECT_NEAR(r.busbw_GBps, bus, 0.01 * bus);
}

TEST(CollectiveRun, AllGatherAndReduceScatterTakeHalfTheAllReduceTime) {
  // Same system: (n-1)/n of the bytes per connection, so at the same bus bandwidth the links
  // move 1 GiB in 15/16 x 2^30 / 393.2e9 = 2.56 ms; 2 loops of 15 steps post 29 x 3 us; + 8.4 us.
  const double expected = 15.0 / 16.0 * 1073741824.0 / (8.0 * kGen5GBps * 1e9) + 29 * 3e-6 + 8.4e-6;
  const double bus = 15.0 / 16.0 * 1073741824.0 / expected / 1e9;  // 379.1 GB/s
  for (const CollectiveOp op : {CollectiveOp::kAllGather, CollectiveOp::kReduceScatter}) {
    Testbed bed(2);
    const CollectiveResult r = bed.run(ring(op, sim::gib(1), Protocol::kSimple, 16));
    EXPECT_NEAR(seconds(r.time), expected, 0.01 * expected) << op_name(op);
    EXPECT_NEAR(r.busbw_GBps, bus, 0.01 * bus) << op_name(op);
  }
}

TEST(CollectiveRun, SmallAllReduceTakesNcclsLatencyFloor) {
  // 8 B on one node with LL: base 6.6 us + 14 steps x 0.6 us (nccl:src/graph/tuning.cc) = 15.0 us;
  // the bytes add nanoseconds. Simple: 8.4 + 14 x 3.4 = 56.0 us.
  Testbed bed(1);
  const CollectiveResult ll =
      bed.run(ring(CollectiveOp::kAllReduce, sim::bytes(8), Protocol::kLl, 1));
  EXPECT_GE(seconds(ll.time), 15.0e-6);
  EXPECT_LT(seconds(ll.time), 15.1e-6);
  const CollectiveResult simple =
      bed.run(ring(CollectiveOp::kAllReduce, sim::bytes(8), Protocol::kSimple, 1));
  EXPECT_GE(seconds(simple.time), 56.0e-6);
  EXPECT_LT(seconds(simple.time), 56.1e-6);
}

TEST(CollectiveRun, BusBandwidthNeverFallsAsTheSizeGrows) {
  for (const Protocol protocol : {Protocol::kLl, Protocol::kLl128, Protocol::kSimple}) {
    Testbed bed(2);
    double previous = 0.0;
    for (std::int64_t size = 8; size <= (std::int64_t{1} << 30); size *= 8) {
      CollectiveRequest request = ring(CollectiveOp::kAllReduce, sim::bytes(size), protocol, 16);
      request.execution = Execution::kPipelined;
      const CollectiveResult r = bed.run(request);
      EXPECT_GE(r.busbw_GBps, previous * (1.0 - 1e-9))
          << protocol_name(protocol) << " at " << size << " B";
      previous = r.busbw_GBps;
    }
  }
}

TEST(CollectiveRun, MultiNodeRingNeverBeatsTheNodesNicAggregate) {
  // 4 nodes on a non-blocking fabric: 8 NDR ports of 400 Gb/s, at most 8 x 50 GB/s of payload.
  Testbed bed(4);
  for (const int channels : {8, 16, 32}) {
    const CollectiveResult r =
        bed.run(ring(CollectiveOp::kAllReduce, sim::gib(1), Protocol::kSimple, channels));
    EXPECT_LE(r.busbw_GBps, 8 * 50.0) << channels << " channels";
  }
}

struct AgreementCase {
  const char* name;
  int nodes;
  CollectiveOp op;
  Protocol protocol;
  std::int64_t size;
  int channels;
  RailMapping rails;
};

class ExecutionsAgree : public ::testing::TestWithParam<AgreementCase> {};

// The pipelined run takes its rates from flow groups instead of one flow per slice, then times
// every slice of every channel together by processor sharing on their links (slice_sharing.hpp),
// never below the groups' pace: the chunk-accurate run's dynamics with even shares in place of
// max-min. So the two agree within 2% whether the bytes or the pipeline's fill dominate: in
// short multi-node rings whose channels drift out of step and find their NVLink ports shared by
// fewer, and in a Broadcast chain of 63 hops whose channels cross each node in step and queue
// behind each other's slices (docs/validation.md).
TEST_P(ExecutionsAgree, WithinTolerance) {
  const AgreementCase& c = GetParam();
  Testbed chunk_bed(c.nodes, "dgx-h100", c.rails, 2.0);
  Testbed pipe_bed(c.nodes, "dgx-h100", c.rails, 2.0);
  CollectiveRequest request = ring(c.op, sim::bytes(c.size), c.protocol, c.channels);
  request.execution = Execution::kChunk;
  const double chunk = seconds(chunk_bed.run(request).time);
  request.execution = Execution::kPipelined;
  const double pipelined = seconds(pipe_bed.run(request).time);
  // The figures of docs/validation.md's table.
  const std::string times =
      fmt::format("chunk {:.3f} us, pipelined {:.3f} us ({:+.2f}%)", chunk * 1e6, pipelined * 1e6,
                  (pipelined / chunk - 1.0) * 100.0);
  std::cout << "  " << times << "\n";
  EXPECT_NEAR(pipelined, chunk, 0.02 * chunk) << times;
}

constexpr auto kAligned = RailMapping::kAligned;
constexpr auto kMisaligned = RailMapping::kMisaligned;
constexpr auto kAr = CollectiveOp::kAllReduce;

INSTANTIATE_TEST_SUITE_P(
    Rings,
    ExecutionsAgree,
    ::testing::Values(
        AgreementCase{"OneNodeSmallLl", 1, kAr, Protocol::kLl, 4096, 4, kAligned},
        AgreementCase{"OneNode1MiBLl128", 1, kAr, Protocol::kLl128, 1 << 20, 8, kAligned},
        AgreementCase{"OneNode256MiBSimple", 1, kAr, Protocol::kSimple, 256 << 20, 16, kAligned},
        AgreementCase{"TwoNodes256MiBSimple", 2, kAr, Protocol::kSimple, 256 << 20, 16, kAligned},
        AgreementCase{"TwoNodesAllGather1GiB", 2, CollectiveOp::kAllGather, Protocol::kSimple,
                      1 << 30, 8, kAligned},
        AgreementCase{"OneNodeBroadcast4GiB", 1, CollectiveOp::kBroadcast, Protocol::kSimple,
                      std::int64_t{4} << 30, 8, kAligned},
        AgreementCase{"FourNodesMisaligned1GiB", 4, kAr, Protocol::kSimple, 1 << 30, 16,
                      kMisaligned},
        AgreementCase{"TwoNodes4MiBSimple", 2, kAr, Protocol::kSimple, 4 << 20, 16, kAligned},
        AgreementCase{"TwoNodesReduceScatterLl128", 2, CollectiveOp::kReduceScatter,
                      Protocol::kLl128, 16 << 20, 8, kAligned},
        AgreementCase{"OneNodeBroadcast64MiB", 1, CollectiveOp::kBroadcast, Protocol::kSimple,
                      64 << 20, 8, kAligned},
        AgreementCase{"TwoNodes64KiBLl", 2, kAr, Protocol::kLl, 64 << 10, 16, kAligned},
        AgreementCase{"FourNodes1MiBLl128", 4, kAr, Protocol::kLl128, 1 << 20, 16, kAligned},
        AgreementCase{"EightNodes8MiBMisaligned", 8, kAr, Protocol::kSimple, 8 << 20, 16,
                      kMisaligned},
        AgreementCase{"EightNodesBroadcast32MiB", 8, CollectiveOp::kBroadcast, Protocol::kSimple,
                      32 << 20, 8, kAligned}),
    [](const ::testing::TestParamInfo<AgreementCase>& param_info) {
      return param_info.param.name;
    });

TEST(CollectiveRun, MisalignedRailsAtTwoToOneLoseToAlignedAndAlignedIgnoresTheUplinks) {
  // 16 dgx-h100 nodes in two units of 8 (scenarios/dgx-h100-16n-oversub2.json): aligned rings
  // stay under their leaf but for the two hops between the units, two channels per rail, which
  // even 4 uplinks per leaf (2:1) carry at full rate; so halving the uplinks changes nothing.
  // Misaligned cabling sends most node-to-node hops over the spine, and at 2:1 a leaf's 4
  // uplinks carry less than its 8 NICs offer.
  const auto busbw = [](RailMapping rails, double oversubscription) {
    Testbed bed(16, "dgx-h100", rails, oversubscription, 8);
    return bed.run(ring(CollectiveOp::kAllReduce, sim::gib(1), Protocol::kSimple, 16)).busbw_GBps;
  };
  const double aligned = busbw(RailMapping::kAligned, 1.0);
  const double aligned_oversubscribed = busbw(RailMapping::kAligned, 2.0);
  const double misaligned_oversubscribed = busbw(RailMapping::kMisaligned, 2.0);
  EXPECT_NEAR(aligned_oversubscribed, aligned, 1e-9 * aligned);
  EXPECT_LT(misaligned_oversubscribed, 0.95 * aligned);
}

TEST(CollectiveRun, TopOfRackCablingSendsEveryRailOfANodeThroughItsLeafsUplinks) {
  // 2 x 8 H100, 16 channels, Simple, 1 GiB AllReduce, eight nodes a unit at 4:1. Cabled
  // top-of-rack, a leaf holds one node's eight NICs and two uplinks, so every channel leaves
  // through them: 400G each, 50 GB/s x 4096/4122 of payload (IB's 4 KiB MTU, wire.hpp), spread
  // evenly by adaptive routing. Aligned, each rail's leaf holds NIC r of both nodes and the
  // uplinks carry nothing: a GPU's Gen5 link, 49.15 GB/s, bounds it (MultiNic's closed form).
  // Both: 2 x 15/16 x 2^30 over the bound, + 59 posts x 3 us + 8.4 us base latency.
  const auto seconds = [](RailMapping rails) {
    Testbed bed(2, "dgx-h100", rails, 4.0, 8, Routing::kAdaptive);
    return sim::to_seconds(
        bed.run(ring(CollectiveOp::kAllReduce, sim::gib(1), Protocol::kSimple, 16)).time);
  };
  const double bytes = 2.0 * 15.0 / 16.0 * 1073741824.0;
  const double posts = 59 * 3e-6 + 8.4e-6;
  const double uplinks = 2.0 * 50e9 * wire_efficiency(Transport::kInfiniband, 4096);
  const double top_of_rack = bytes / uplinks + posts;
  const double aligned = bytes / (8.0 * kGen5GBps * 1e9) + posts;
  EXPECT_NEAR(seconds(RailMapping::kTopOfRack), top_of_rack, 0.01 * top_of_rack);
  EXPECT_NEAR(seconds(RailMapping::kAligned), aligned, 0.01 * aligned);
}

TEST(CollectiveRun, TopOfRackCablingPutsWholeNodesOnALeaf) {
  // 20 nodes, 16 a unit: each of a unit's eight leaves takes two whole nodes.
  Testbed bed(20, "dgx-h100", RailMapping::kTopOfRack, 1.0, 16);
  for (int n = 0; n < 20; ++n) {
    for (int nic = 0; nic < 8; ++nic) {
      EXPECT_EQ(bed.system->rail_of(n, nic), n % 16 / 2) << n << " " << nic;
    }
  }
  // A unit that does not split into whole nodes a leaf, or several planes: refused.
  SystemSpec spec = bed.system->spec();
  for (const auto& [per_leaf, planes] : {std::pair(12, 1), std::pair(16, 2)}) {
    spec.fabric.nodes_per_leaf = per_leaf;
    spec.fabric.planes = planes;
    sim::FlowNetwork again(bed.simulator);
    EXPECT_THROW(System(spec, again), sim::InputError) << per_leaf << " " << planes;
  }
}

TEST(CollectiveRun, RejectsWhatItCannotRun) {
  Testbed bed(2);
  // Tree and NVLS Tree run AllReduce only; NVLS needs a single NVSwitch node here (CollNet is not
  // modelled); PAT needs one GPU per node.
  CollectiveRequest tree = ring(CollectiveOp::kAllGather, sim::mib(1), Protocol::kSimple, 8);
  tree.algorithm = Algorithm::kTree;
  EXPECT_THROW(bed.run(tree), sim::InputError);
  CollectiveRequest nvls = ring(CollectiveOp::kAllReduce, sim::mib(1), Protocol::kSimple, 8);
  nvls.algorithm = Algorithm::kNvls;
  EXPECT_THROW(bed.run(nvls), sim::InputError);
  CollectiveRequest nvls_tree = tree;
  nvls_tree.algorithm = Algorithm::kNvlsTree;
  EXPECT_THROW(bed.run(nvls_tree), sim::InputError);
  CollectiveRequest pat = tree;
  pat.algorithm = Algorithm::kPat;
  EXPECT_THROW(bed.run(pat), sim::InputError);
  CollectiveRequest too_many = ring(CollectiveOp::kAllReduce, sim::mib(1), Protocol::kSimple, 8);
  too_many.comm = {3, 8};
  EXPECT_THROW(bed.run(too_many), sim::InputError);
  CollectiveRequest negative = ring(CollectiveOp::kAllReduce, sim::bytes(-8), Protocol::kSimple, 8);
  EXPECT_THROW(bed.run(negative), sim::InputError);
}

TEST(CollectiveRun, ReduceRunsTheChainTowardsItsRoot) {
  // 3 nodes x 1 GPU, root rank 0, 4 channels of 1 GiB: Broadcast's chain is 0 > 1 > 2, Reduce's
  // 1 > 2 > 0. Healthy, both move S once through each GPU-NIC path on the way, at 49.15 GB/s,
  // and each network hop posts its channel's 2048 steps of 512 KiB one after another at NCCL's
  // Simple network overhead, 3 us: S / 49.15 GB/s + 6.144 ms (+ 8.4 us base latency). With
  // node 2's ports towards the fabric at half rate, only Reduce sends through them:
  // S / (port / 2) + the posts, while Broadcast keeps its time.
  Testbed bed(3);
  const auto run = [&bed](CollectiveOp op) {
    CollectiveRequest request = ring(op, sim::gib(4), Protocol::kSimple, 4);
    request.comm = {3, 1};
    return bed.run(request);
  };
  const double bytes = 4.0 * 1073741824.0;
  const double posts_s = 2048 * 3e-6 + 8.4e-6;
  const double healthy_s = bytes / (kGen5GBps * 1e9) + posts_s;
  const CollectiveResult broadcast = run(CollectiveOp::kBroadcast);
  EXPECT_NEAR(seconds(run(CollectiveOp::kReduce).time), healthy_s, 0.01 * healthy_s);
  EXPECT_NEAR(seconds(broadcast.time), healthy_s, 0.01 * healthy_s);
  double half_port = 0.0;
  for (std::uint32_t l = 0; l < bed.network.link_count(); ++l) {
    const sim::LinkId id{l};
    const std::string name(bed.network.link(id).name);
    if (name.rfind("n2.", 0) == 0 && name.find(">leaf") != std::string::npos) {
      half_port = bed.network.link(id).capacity.bytes_per_s / 2.0;
      bed.network.set_link_capacity(id, sim::Bandwidth{half_port});
    }
  }
  ASSERT_GT(half_port, 0.0);
  const double reduce_s = bytes / half_port + posts_s;
  EXPECT_NEAR(seconds(run(CollectiveOp::kReduce).time), reduce_s, 0.01 * reduce_s);
  EXPECT_NEAR(seconds(run(CollectiveOp::kBroadcast).time), seconds(broadcast.time),
              0.001 * seconds(broadcast.time));
}

}  // namespace
}  // namespace railsim::models
