// File: tests/models/collective/multi_nic_test.cpp
// GPUs with several NICs (nic_affinity.hpp): which NICs each GPU takes, and collectives and p2p
// on two ports per GPU against the closed forms of one port of twice the rate.
#include "models/collective/collective_run.hpp"
#include "models/collective/nic_affinity.hpp"
#include "models/fabric/fabric_presets.hpp"
#include "models/fabric/wire.hpp"
#include "models/hardware/node_presets.hpp"
#include "models/scenario/system_file.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace railsim::models {
namespace {

// Per direction, GB/s: a PCIe Gen5 x16 link, 32 GT/s x 16 x 128/130 / 8 at 0.78
// (kPcieEfficiency), the GPU's link to its switch and the narrowest hop to the fabric.
constexpr double kGen5GBps = 32.0 * 16.0 * 128.0 / 130.0 / 8.0 * 0.78;

// dgx-h100 with every compute NIC split into `ports` NICs of 400G / ports on the same PCIe
// switch, the new ones after the node's other NICs: OCI BM.GPU.H100.8's 16 x 200G on 8 GPUs
// for two.
NodeSpec ports_per_gpu(int ports) {
  NodeSpec node = node_preset("dgx-h100");
  std::vector<Nic> added;
  for (const int index : compute_nic_indices(node)) {
    Nic& nic = node.nics[static_cast<std::size_t>(index)];
    nic.port_rate = sim::gbps(400.0 / ports);
    for (int p = 1; p < ports; ++p) {
      Nic port = nic;
      port.name = fmt::format("mlx5_{}", node.nics.size() + added.size());
      added.push_back(port);
    }
  }
  node.nics.insert(node.nics.end(), added.begin(), added.end());
  return node;
}

// A dgx-h100 node cut down to GPU 0 and `nics` compute NICs of `gbps` below its PCIe switch.
NodeSpec one_gpu_with(int nics, double gbps) {
  NodeSpec node = node_preset("dgx-h100");
  node.gpus.resize(1);
  const Nic first = node.nics[static_cast<std::size_t>(compute_nic_indices(node).front())];
  node.nics.clear();
  for (int n = 0; n < nics; ++n) {
    Nic nic = first;
    nic.name = fmt::format("mlx5_{}", n);
    nic.port_rate = sim::gbps(gbps);
    node.nics.push_back(nic);
  }
  return node;
}

SystemSpec nodes_of(NodeSpec node, int nodes) {
  SystemSpec spec;
  spec.node = std::move(node);
  spec.nodes = nodes;
  return spec;
}

struct Testbed {
  sim::Simulator simulator;
  sim::FlowNetwork network{simulator};
  std::unique_ptr<System> system;

  explicit Testbed(const SystemSpec& spec) : system(std::make_unique<System>(spec, network)) {}

  Testbed(NodeSpec node, int nodes) : Testbed(nodes_of(std::move(node), nodes)) {}

  CollectiveResult run(CollectiveRequest request) {
    return run_collective(*system, network, simulator, request);
  }

  // Payload bytes node 0's port of compute NIC `nic` carried towards its leaf.
  double sent_by(int nic) const {
    const NodeSpec& node = system->spec().node;
    const std::string prefix = fmt::format(
        "n0.{}>",
        node.nics[static_cast<std::size_t>(system->compute_nics()[static_cast<std::size_t>(nic)])]
            .name);
    for (std::size_t l = 0; l < network.link_count(); ++l) {
      const sim::LinkId id{static_cast<std::uint32_t>(l)};
      if (network.link(id).name.starts_with(prefix)) {
        return network.counters(id).bytes_carried;
      }
    }
    ADD_FAILURE() << "no link " << prefix;
    return 0.0;
  }
};

CollectiveRequest ring_all_reduce(Communicator comm) {
  CollectiveRequest request;
  request.op = CollectiveOp::kAllReduce;
  request.size = sim::gib(1);
  request.comm = comm;
  request.algorithm = Algorithm::kRing;
  request.protocol = Protocol::kSimple;
  request.channels = 16;
  return request;
}

// After ring_all_reduce on 2 x 8 GPUs with two ports a GPU: each of node 0's 16 ports carried
// one channel's 2 x 15/16 x 1 GiB / 16 out.
void expect_a_ring_channel_on_every_port(const Testbed& bed) {
  const double per_port = 2.0 * 15.0 / 16.0 * 1073741824.0 / 16.0;
  for (int nic = 0; nic < 16; ++nic) {
    EXPECT_NEAR(bed.sent_by(nic), per_port, 0.01 * per_port) << nic;
  }
}

TEST(MultiNic, EachGpuTakesBothPortsOfItsSwitch) {
  // GPU g shares a PCIe switch with compute NICs g and 8 + g (PIX); every other NIC is farther.
  // Pass one gives GPU g NIC g; the eight left join the GPU at their switch, whose two 200G
  // ports (50 GB/s) stay under its Gen5 link's 49.15 GB/s until the second.
  Testbed bed(ports_per_gpu(2), 1);
  GpuNicSets expected;
  for (int g = 0; g < 8; ++g) {
    expected.push_back({g, 8 + g});
  }
  EXPECT_EQ(gpu_nics(*bed.system, 0, 8), expected);
}

TEST(MultiNic, AGpuTakesNoMorePortsThanItsLinkFeeds) {
  // Four 200G ports on one GPU's switch: two (50 GB/s) already reach past its 49.15 GB/s Gen5
  // link, so the other two stay idle, as NCCL's getLocalNetCountByBw leaves them.
  Testbed bed(one_gpu_with(4, 200.0), 1);
  EXPECT_EQ(gpu_nics(*bed.system, 0, 1), (GpuNicSets{{0, 1}}));
}

TEST(MultiNic, TwoPortsPerGpuReachTheRingBoundOfOne400gNic) {
  // 2 x 8 H100, 16 channels, Simple, 1 GiB AllReduce. With one 400G NIC per GPU each NIC
  // carries two channels out; with two 200G ports channels c and c + 8 leave GPU c + 1 by its
  // two ports, one each. Either way a GPU's Gen5 link, 49.15 GB/s, carries two channels of
  // 24.58 GB/s, under a 200G port's 25 x 4096/4122 = 24.84 GB/s: the closed form of
  // CollectiveRun.TwoNodeRingAllReduceIsBoundByEightGdrPcieLinks, 2 x 15/16 x 2^30 /
  // (8 x 49.15 GB/s) + 59 posts x 3 us + 8.4 us base latency, for both.
  const double expected =
      2.0 * 15.0 / 16.0 * 1073741824.0 / (8.0 * kGen5GBps * 1e9) + 59 * 3e-6 + 8.4e-6;
  Testbed one(ports_per_gpu(1), 2);
  Testbed two(ports_per_gpu(2), 2);
  const CollectiveResult a = one.run(ring_all_reduce({2, 8}));
  const CollectiveResult b = two.run(ring_all_reduce({2, 8}));
  EXPECT_NEAR(sim::to_seconds(a.time), expected, 0.01 * expected);
  EXPECT_NEAR(sim::to_seconds(b.time), expected, 0.01 * expected);
  expect_a_ring_channel_on_every_port(two);
}

TEST(MultiNic, AGpuWithFourNicsSendsOverAllFour) {
  // 2 x 1 GPUs, each with four 100G NICs on its switch (4 x 12.5 GB/s reach its link's 49.15
  // only with all four). SendRecv of 1 GiB: the message leaves over the four NICs, a quarter
  // each, at the Gen5 link's 49.15 GB/s (the ports together take 4 x 12.42 = 49.69); three
  // NICs would cap it at 37.3.
  Testbed bed(one_gpu_with(4, 100.0), 2);
  CollectiveRequest request;
  request.op = CollectiveOp::kSendRecv;
  request.size = sim::gib(1);
  request.comm = {2, 1};
  const CollectiveResult r = bed.run(request);
  EXPECT_NEAR(r.busbw_GBps, kGen5GBps, 0.01 * kGen5GBps);
  for (int nic = 0; nic < 4; ++nic) {
    EXPECT_NEAR(bed.sent_by(nic), 1073741824.0 / 4.0, 0.01 * 1073741824.0 / 4.0) << nic;
  }
}

TEST(MultiNic, TwoPortsPerGpuCarryTheTwoNodeAllToAllAsOne400gNic) {
  // P2p.TwoNodeAllToAllSendsHalfOfEveryBufferThroughEachNic's closed form, busbw = 49.15 x
  // 15/16 / 0.5 = 92.16 GB/s: PXN puts the shares for remote GPU j on GPU j's link, S/2 at
  // 49.15 GB/s, now split over its two 200G ports.
  Testbed bed(ports_per_gpu(2), 2);
  CollectiveRequest request;
  request.op = CollectiveOp::kAllToAll;
  request.size = sim::gib(4);
  request.comm = {2, 8};
  const CollectiveResult r = bed.run(request);
  const double expected = kGen5GBps * 15.0 / 16.0 / 0.5;
  EXPECT_NEAR(r.busbw_GBps, expected, 0.01 * expected);
}

TEST(MultiNic, TreesRunAsFastOnTwoPortsAsOnOne400gNic) {
  // 4 x 8 H100, 1 GiB AllReduce, Simple. Tree channel c has its head on GPU c mod 8, in tree 0
  // for the first half of the channels, and leaves by its GPU's port c / 8: at 32 channels (what
  // NCCL's search gives 16 ports) each port of a head carries one channel of each tree, half
  // what its 400G NIC does. NVLS Tree's heads take their ports in turn over each tree's
  // channels. Either way every port carries half a 400G NIC's load and the GPU's Gen5 link
  // binds (two channels of 24.58 GB/s against a 200G port's 24.84): the same time. (At 16
  // channels a head's two channels are one per tree, so one port carries the busier tree's
  // pattern and the tree runs 7.5% slower than on a 400G NIC that pools both.)
  for (const Algorithm algorithm : {Algorithm::kTree, Algorithm::kNvlsTree}) {
    Testbed one(ports_per_gpu(1), 4);
    Testbed two(ports_per_gpu(2), 4);
    CollectiveRequest request = ring_all_reduce({4, 8});
    request.algorithm = algorithm;
    request.channels = algorithm == Algorithm::kTree ? std::optional<int>(32) : std::nullopt;
    const CollectiveResult a = one.run(request);
    const CollectiveResult b = two.run(request);
    EXPECT_NEAR(sim::to_seconds(b.time), sim::to_seconds(a.time), 0.01 * sim::to_seconds(a.time))
        << algorithm_name(algorithm);
    for (int nic = 0; nic < 16; ++nic) {
      EXPECT_NEAR(two.sent_by(nic), one.sent_by(nic % 8) / 2.0, 0.01 * one.sent_by(nic % 8))
          << algorithm_name(algorithm) << " NIC " << nic;
    }
  }
}

TEST(MultiNic, IbHcaKeepsAGpuToTheNicsItLists) {
  // NCCL_IB_HCA naming only the first port of each GPU (dgx-h100's compute NICs, exactly): each
  // GPU is back to one 200G port, 25 x 4096/4122 = 24.84 GB/s under two channels, below its
  // Gen5 link: the 2 x 8 ring of TwoPortsPerGpuReachTheRingBoundOfOne400gNic at 8 x 24.84
  // GB/s, 2 x 15/16 x 2^30 / 198.7e9 + 59 posts of 3 us + 8.4 us = 10.32 ms.
  NodeSpec node = ports_per_gpu(2);
  SystemSpec spec;
  spec.node = node;
  spec.nodes = 2;
  spec.ib_hca = parse_ib_hca("=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11");
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const System system(spec, network);
  GpuNicSets expected;
  for (int g = 0; g < 8; ++g) {
    expected.push_back({g});
  }
  EXPECT_EQ(gpu_nics(system, 0, 8), expected);
  const CollectiveResult r = run_collective(system, network, simulator, ring_all_reduce({2, 8}));
  const double port_GBps = 25.0 * 4096.0 / 4122.0;
  const double time =
      2.0 * 15.0 / 16.0 * 1073741824.0 / (8.0 * port_GBps * 1e9) + 59 * 3e-6 + 8.4e-6;
  EXPECT_NEAR(sim::to_seconds(r.time), time, 0.01 * time);
}

// A 2 x 8, 8 GiB ring AllReduce, Simple, 32 channels on `spec`, against its closed form where
// every GPU sends its 4 channels through its PCIe Gen6 x16 link, 64 GT/s x 16 x 242/256 / 8 x
// 0.78 = 94.37 GB/s: 8 x 94.37 GB/s of busbw moves 2 x 15/16 x 8 GiB in 21.34 ms; 8 loops of 30
// steps post 239 x 3 us; + 8.4 us. GPU 3's NICs are `gpu3_nics`.
void expect_the_ring_at_the_gen6_link(const SystemSpec& spec, const std::vector<int>& gpu3_nics) {
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const System system(spec, network);
  CollectiveRequest request = ring_all_reduce({2, 8});
  request.size = sim::gib(8);
  request.channels = 32;
  const CollectiveResult r = run_collective(system, network, simulator, request);
  const double gen6_GBps = 64.0 * 16.0 * 242.0 / 256.0 / 8.0 * 0.78;
  const double bytes = 2.0 * 15.0 / 16.0 * 8.0 * 1073741824.0;
  const double time = bytes / (8.0 * gen6_GBps * 1e9) + 239 * 3e-6 + 8.4e-6;
  EXPECT_NEAR(sim::to_seconds(r.time), time, 0.01 * time);
  EXPECT_EQ(gpu_nics(system, 0, 8)[3], gpu3_nics);
}

TEST(MultiNic, Dgx300sTwoPlanesCarryTheRingAtTheGpusGen6Link) {
  // dgx-b300 on a two-plane fabric: each GPU's ConnectX-8 is two 400G ports, one on each plane
  // (rails 0-7, 8-15), 99.37 GB/s of payload together, above the GPU's link. Channel c leaves
  // by port c / 8 mod 2, so no hop leaves its plane.
  SystemSpec spec;
  spec.node = node_preset("dgx-b300");
  spec.nodes = 2;
  spec.fabric.planes = 2;
  expect_the_ring_at_the_gen6_link(spec, {3, 11});
}

TEST(MultiNic, Dgx300XdrsOnePortCarriesTheSameRingAsTwoPlanes) {
  // dgx-b300-xdr on superpod-b300-xdr: each GPU's ConnectX-8 as one 800G XDR port, again 99.37
  // GB/s of payload above the GPU's link: the same closed form through one port.
  SystemSpec spec;
  spec.node = node_preset("dgx-b300-xdr");
  spec.nodes = 2;
  spec.fabric = fabric_preset("superpod-b300-xdr");
  expect_the_ring_at_the_gen6_link(spec, {3});
}

TEST(MultiNic, TheShippedSixteenPortScenarioRunsBothPortsOfEveryGpu) {
  // scenarios/h100-16x200g-roce-2n.json: GPU g's dual-port card gives it compute NICs 2g and
  // 2g + 1 at PIX. Over RoCE a 200G port carries 25 x 4096/4178 = 24.51 GB/s of payload, a hair
  // under the 24.58 GB/s a channel gets of its GPU's Gen5 link, so in the 16-channel ring each
  // port binds its one channel: the closed form of TwoPortsPerGpuReachTheRingBoundOfOne400gNic
  // at 2 x 24.51 GB/s a GPU.
  const scenario::SystemFile file = scenario::load_system_file(
      std::string(RAILSIM_SOURCE_DIR) + "/scenarios/h100-16x200g-roce-2n.json");
  Testbed bed(file.system);
  GpuNicSets expected;
  for (int g = 0; g < 8; ++g) {
    expected.push_back({2 * g, 2 * g + 1});
  }
  EXPECT_EQ(gpu_nics(*bed.system, 0, 8), expected);
  const double port_GBps = 25.0 * 4096.0 / 4178.0;
  const double seconds =
      2.0 * 15.0 / 16.0 * 1073741824.0 / (8.0 * 2.0 * port_GBps * 1e9) + 59 * 3e-6 + 8.4e-6;
  const CollectiveResult r = bed.run(ring_all_reduce({2, 8}));
  EXPECT_NEAR(sim::to_seconds(r.time), seconds, 0.01 * seconds);
  expect_a_ring_channel_on_every_port(bed);
}

}  // namespace
}  // namespace railsim::models
