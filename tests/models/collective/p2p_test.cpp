// File: tests/models/collective/p2p_test.cpp
// AllToAll, SendRecv, Gather and Scatter (p2p_plan.hpp) on preset systems against closed forms
// derived by hand, and the requests NCCL's point-to-point calls cannot take.
#include "models/collective/collective_run.hpp"
#include "models/collective/p2p_lowering.hpp"
#include "models/collective/p2p_plan.hpp"
#include "models/fabric/wire.hpp"
#include "models/hardware/node_presets.hpp"
#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

namespace railsim::models {
namespace {

// Per direction, GB/s: a GPU's PCIe Gen5 x16 path to its NIC, 32 GT/s x 16 x 128/130 / 8 at 0.78
// (kPcieEfficiency), the narrowest link between a DGX H100 GPU and the fabric; and the GPU's
// NVLink 4 port, 18 x 25 GB/s at NCCL's 370/450 efficiency.
constexpr double kGen5GBps = 32.0 * 16.0 * 128.0 / 130.0 / 8.0 * 0.78;
constexpr double kH100PortGBps = 370.0;

constexpr double kGiB = 1073741824.0;

struct Testbed {
  sim::Simulator simulator;
  sim::FlowNetwork network{simulator};
  std::unique_ptr<System> system;

  explicit Testbed(SystemSpec spec) : system(std::make_unique<System>(spec, network)) {}

  CollectiveResult run(CollectiveOp op,
                       sim::Bytes size,
                       Communicator comm,
                       bool pxn = true,
                       std::shared_ptr<const PeerBytes> peer_bytes = nullptr) {
    CollectiveRequest request;
    request.op = op;
    request.size = size;
    request.comm = comm;
    request.pxn = pxn;
    request.peer_bytes = std::move(peer_bytes);
    return run_collective(*system, network, simulator, request);
  }
};

SystemSpec dgx_h100(int nodes) {
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = nodes;
  return spec;
}

TEST(P2p, TwoNodeAllToAllSendsHalfOfEveryBufferThroughEachNic) {
  // 2 x 8 H100, rail-aligned. Each GPU sends 8 of its 16 shares of S to the other node, and PXN
  // sends the share for remote GPU j out of NIC j: NIC j's path from its GPU carries 8 x S/16 =
  // S/2 at 49.15 GB/s, so busbw = S / (S/2 / 49.15) x 15/16 = 92.16 GB/s.
  Testbed bed(dgx_h100(2));
  const CollectiveResult r = bed.run(CollectiveOp::kAllToAll, sim::gib(4), {2, 8});
  const double expected = kGen5GBps * 15.0 / 16.0 / 0.5;
  EXPECT_NEAR(r.busbw_GBps, expected, 0.01 * expected);
  EXPECT_FALSE(r.algorithm.has_value());
  EXPECT_EQ(r.protocol, Protocol::kSimple);
  EXPECT_EQ(r.channels, 4);  // ceil(50 GB/s / 14) p2p channels per network peer
}

TEST(P2p, OneNodeAllToAllMovesAtTheNvlinkPortRate) {
  // 1 x 8 on NVSwitch: each GPU sends 7 shares of S/8 out of its port (and takes 7 in), 7/8 x S
  // at 370 GB/s; busbw = S / (7/8 S / 370) x 7/8 = 370 GB/s.
  Testbed bed(dgx_h100(1));
  const CollectiveResult r = bed.run(CollectiveOp::kAllToAll, sim::gib(4), {1, 8});
  EXPECT_NEAR(r.busbw_GBps, kH100PortGBps, 0.01 * kH100PortGBps);
  const double expected_s = 7.0 / 8.0 * 4.0 * kGiB / (kH100PortGBps * 1e9);
  EXPECT_NEAR(sim::to_seconds(r.time), expected_s, 0.01 * expected_s);
}

TEST(P2p, SendRecvBetweenTwoNodesRunsAtTheNicPathRate) {
  // 2 x 1: each rank sends S to the other at once, each direction of the path at 49.15 GB/s;
  // SendRecv's busbw is its algbw, S / t.
  Testbed bed(dgx_h100(2));
  const CollectiveResult r = bed.run(CollectiveOp::kSendRecv, sim::gib(4), {2, 1});
  EXPECT_NEAR(r.busbw_GBps, kGen5GBps, 0.01 * kGen5GBps);
  EXPECT_DOUBLE_EQ(r.busbw_GBps, r.algbw_GBps);
}

// What NCCL's topology detection reports for `nodes` nodes of one H100 on a 400G NIC each
// (NCCL's 50 GB/s).
TuningTopology one_h100_per_node(int nodes) {
  TuningTopology topology;
  topology.nodes = nodes;
  topology.gpus_per_node = 1;
  topology.nics_per_gpu = 1;
  topology.nic_bw_GBps = 50.0;
  return topology;
}

TEST(P2p, ChannelsPerPeerHalveAsTheRanksOutgrowThePool) {
  // One H100 per node on a 400G NIC (NCCL's 50 GB/s): a network peer asks ceil(50 / 14) = 4
  // channels. Across nodes they halve while 4 x ceil(ranks / 8) exceeds the pool (the comm's
  // channels up to a power of two): 2 ranks, pool 4: 4 x 1 = 4 stays; 10 ranks: 4 x 2 = 8 > 4,
  // 2 x 2 = 4 stays; a pool of 3 is 4. 80 ranks, pool 16: 40, 20 > 16, 1 x 10 stays.
  TuningTopology topology = one_h100_per_node(2);
  EXPECT_EQ(p2p_channels_per_peer(topology, 4), 4);
  topology.nodes = 10;
  EXPECT_EQ(p2p_channels_per_peer(topology, 4), 2);
  EXPECT_EQ(p2p_channels_per_peer(topology, 3), 2);
  topology.gpus_per_node = 8;
  EXPECT_EQ(p2p_channels_per_peer(topology, 16), 1);
  // One node: the fewest an NVLink peer asks, 2 per link (18 links at 20.6: 36, so 64), within
  // the pool; PCIe peers ask 2.
  topology.nodes = 1;
  topology.intra_bw_GBps = 18 * 20.6;
  EXPECT_EQ(p2p_channels_per_peer(topology, 24), 32);
  topology.intra_nvlink = false;
  EXPECT_EQ(p2p_channels_per_peer(topology, 24), 2);
}

TEST(P2p, SendRecvOnTenNodesRunsAtItsTwoChannelsRate) {
  // 10 x 1: the comm runs 4 channels (one 48 GB/s search channel, duplicated twice on Hopper),
  // so 2 p2p channels per peer (above), each at most 14 GB/s (NCCL_P2P_PER_CHANNEL_NET_BW): the
  // stream to the next node moves at 28 GB/s, under the NIC path's 49.15. cluster01 measured
  // 24.9 (docs/validation.md).
  Testbed bed(dgx_h100(10));
  const CollectiveResult r = bed.run(CollectiveOp::kSendRecv, sim::gib(4), {10, 1});
  EXPECT_EQ(r.channels, 2);
  EXPECT_NEAR(r.busbw_GBps, 28.0, 0.01 * 28.0);
}

TEST(P2p, ChannelsPerNetPeerSetByTheUserAreNotHalved) {
  // NCCL_NCHANNELS_PER_NET_PEER replaces a network peer's ask and skips the halving, held only
  // to the pool (nccl:src/graph/paths.cc, ncclTopoComputeP2pChannels): 10 x 1, pool 4, asked 4:
  // 4 (NCCL's own count halves to 2, above); asked 8: the pool's 4; asked 3: a power of two, 4.
  // An NVLink peer's 2 per link still bounds it on a node of 8, and one node has no network peer.
  TuningTopology topology = one_h100_per_node(10);
  EXPECT_EQ(p2p_channels_per_peer(topology, 4, 4), 4);
  EXPECT_EQ(p2p_channels_per_peer(topology, 4, 8), 4);
  EXPECT_EQ(p2p_channels_per_peer(topology, 4, 3), 4);
  EXPECT_EQ(p2p_channels_per_peer(topology, 4, 1), 1);
  topology.gpus_per_node = 8;
  topology.intra_bw_GBps = 2 * 20.6;  // two NVLinks at NCCL's H100 rate: a local peer asks 4
  EXPECT_EQ(p2p_channels_per_peer(topology, 16, 8), 4);
  topology.nodes = 1;
  EXPECT_EQ(p2p_channels_per_peer(topology, 16, 1), p2p_channels_per_peer(topology, 16));
}

TEST(P2p, FourChannelsPerNetPeerRestoreTenNodeSendRecv) {
  // NVIDIA/nccl#1272: SendRecv slows from 8 nodes up and NCCL_NCHANNELS_PER_NET_PEER=4 restores
  // it. 10 x 1 with 4 channels per peer: 4 x 14 GB/s = 56 against the NIC path's 49.15, which
  // binds, as on two nodes (SendRecvBetweenTwoNodesRunsAtTheNicPathRate); with 1, one channel's
  // 14 GB/s.
  for (const auto& [per_peer, expected] : {std::pair{4, kGen5GBps}, std::pair{1, 14.0}}) {
    Testbed bed(dgx_h100(10));
    CollectiveRequest request;
    request.op = CollectiveOp::kSendRecv;
    request.size = sim::gib(4);
    request.comm = {10, 1};
    request.channels_per_net_peer = per_peer;
    const CollectiveResult r = run_collective(*bed.system, bed.network, bed.simulator, request);
    EXPECT_EQ(r.channels, per_peer);
    EXPECT_NEAR(r.busbw_GBps, expected, 0.01 * expected) << per_peer;
  }
}

TEST(P2p, PxnKeepsAllToAllOnItsRailsWhereTheUplinksAreThin) {
  // 2 x 8 under 8 rail leaves of 2 nodes each, 2:1: every leaf has one uplink, to one spine.
  // PXN on: every share leaves on its receiver's rail, nothing climbs, 92.16 GB/s as above.
  // PXN off: GPU i sends to remote GPU j from NIC i to NIC j, so 7 of its 8 remote shares change
  // rail: leaf i's uplink carries those of both nodes' NIC i, 2 x 7 x S/16 = 7/8 S, at the port's
  // payload rate R = 50 GB/s x the IB wire efficiency: busbw = S / (7/8 S / R) x 15/16.
  SystemSpec spec = dgx_h100(2);
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.oversubscription = 2.0;
  spec.fabric.spines = 1;
  const double port_GBps = spec.fabric.port_rate.bytes_per_s / 1e9 *
                           wire_efficiency(spec.fabric.transport, spec.fabric.mtu);
  Testbed bed(spec);
  const CollectiveResult on = bed.run(CollectiveOp::kAllToAll, sim::gib(4), {2, 8}, true);
  const double on_expected = kGen5GBps * 15.0 / 16.0 / 0.5;
  EXPECT_NEAR(on.busbw_GBps, on_expected, 0.01 * on_expected);
  const CollectiveResult off = bed.run(CollectiveOp::kAllToAll, sim::gib(4), {2, 8}, false);
  const double off_expected = port_GBps * 15.0 / 16.0 / (7.0 / 8.0);
  EXPECT_NEAR(off.busbw_GBps, off_expected, 0.01 * off_expected);
}

TEST(P2p, OnAMisalignedDesignPxnMovesTheClimbToTheReceiversRail) {
  // 2 x 8 under 8 rail leaves of 2 nodes, 2:1 (one uplink each), each node's NICs cabled to the
  // leaves in its own order. A share from GPU i of node a to GPU j of node b leaves by NIC j of
  // node a with PXN (NIC i without) and enters by NIC j of node b; it climbs where the two NICs
  // hang off different leaves. Each leaf's uplink, at the port's payload rate R, carries S/16 for
  // every share that climbs from (or descends to) it, each NIC path S/2 at 49.15 GB/s: t is the
  // largest of those loads over its rate, counted here from the cabling.
  SystemSpec spec = dgx_h100(2);
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.oversubscription = 2.0;
  spec.fabric.spines = 1;
  spec.fabric.rails = RailMapping::kMisaligned;
  spec.fabric.rail_seed = 3;
  const double port_GBps = spec.fabric.port_rate.bytes_per_s / 1e9 *
                           wire_efficiency(spec.fabric.transport, spec.fabric.mtu);
  Testbed bed(spec);
  const auto expected_busbw = [&](bool pxn) {
    std::vector<double> up(8, 0.0);
    std::vector<double> down(8, 0.0);
    for (int a = 0; a < 2; ++a) {
      const int b = 1 - a;
      for (int i = 0; i < 8; ++i) {
        for (int j = 0; j < 8; ++j) {
          const int from = bed.system->leaf_of(a, bed.system->nearest_compute_nic(a, pxn ? j : i));
          const int to = bed.system->leaf_of(b, bed.system->nearest_compute_nic(b, j));
          if (from != to) {
            up[static_cast<std::size_t>(from)] += 1.0 / 16.0;
            down[static_cast<std::size_t>(to)] += 1.0 / 16.0;
          }
        }
      }
    }
    const double busiest = std::max(*std::max_element(up.begin(), up.end()),
                                    *std::max_element(down.begin(), down.end()));
    // Time per byte of S: the busiest uplink or a NIC path's half of S.
    const double t = std::max(busiest / port_GBps, 0.5 / kGen5GBps);
    return 15.0 / 16.0 / t;
  };
  const double on = expected_busbw(true);
  const double off = expected_busbw(false);
  EXPECT_NE(on, off);  // the seed's cabling makes the two differ
  EXPECT_NEAR(bed.run(CollectiveOp::kAllToAll, sim::gib(4), {2, 8}, true).busbw_GBps, on,
              0.01 * on);
  EXPECT_NEAR(bed.run(CollectiveOp::kAllToAll, sim::gib(4), {2, 8}, false).busbw_GBps, off,
              0.01 * off);
}

TEST(P2p, GatherFunnelsTheOtherNodeThroughTheRootsRail) {
  // 2 x 8, root rank 0 (node 0, GPU 0). PXN sends the other node's 8 shares of S/16 out of its
  // NIC 0 (the root's device index), into the root's NIC 0: S/2 on each GPU-NIC path at 49.15
  // GB/s; the 7 shares inside node 0 cross NVLink beside it. busbw = S / (S/2 / 49.15) x 15/16.
  Testbed bed(dgx_h100(2));
  const CollectiveResult r = bed.run(CollectiveOp::kGather, sim::gib(4), {2, 8});
  const double expected = kGen5GBps * 15.0 / 16.0 / 0.5;
  EXPECT_NEAR(r.busbw_GBps, expected, 0.01 * expected);
}

TEST(P2p, ScatterWithPxnIsBoundByTheRootsNvlinkPort) {
  // 2 x 8, root rank 0. PXN on: the root sends its 7 shares of S/16 inside node 0 and, for the
  // other node's 8 GPUs, 7 more over NVLink to the GPUs beside NICs 1-7 (its own NIC 0 sends the
  // eighth): 14 x S/16 out of its 370 GB/s port, while each NIC carries S/16. busbw = S /
  // (7/8 S / 370) x 15/16 = 396.4 GB/s. PXN off: all 8 leave through the root's NIC 0, S/2 at
  // 49.15 GB/s: 92.16 GB/s.
  Testbed bed(dgx_h100(2));
  const CollectiveResult on = bed.run(CollectiveOp::kScatter, sim::gib(4), {2, 8}, true);
  const double on_expected = kH100PortGBps / (7.0 / 8.0) * 15.0 / 16.0;
  EXPECT_NEAR(on.busbw_GBps, on_expected, 0.01 * on_expected);
  const CollectiveResult off = bed.run(CollectiveOp::kScatter, sim::gib(4), {2, 8}, false);
  const double off_expected = kGen5GBps * 15.0 / 16.0 / 0.5;
  EXPECT_NEAR(off.busbw_GBps, off_expected, 0.01 * off_expected);
}

// An all-to-all-v over 2 x 8 in which every rank sends `bytes` to rank 0 alone.
std::shared_ptr<const PeerBytes> to_rank_zero(sim::Bytes bytes) {
  auto matrix = std::make_shared<PeerBytes>(16 * 16);
  for (int src = 1; src < 16; ++src) {
    (*matrix)[static_cast<std::size_t>(src) * 16] = bytes;
  }
  return matrix;
}

TEST(P2p, AllToAllvIsBoundByItsBusiestReceiver) {
  // Every rank sends B to rank 0 only. Node 1's eight messages go over NVLink to node 1's GPU 0
  // (PXN) and out of NIC 0, whose path into node 0's GPU 0 carries 8 B at 49.15 GB/s; node 0's
  // seven take 7 B through GPU 0's NVLink port at 370 GB/s, which finishes first: t = 8 B / 49.15.
  Testbed bed(dgx_h100(2));
  const CollectiveResult r =
      bed.run(CollectiveOp::kAllToAll, sim::gib(1), {2, 8}, true, to_rank_zero(sim::gib(1)));
  const double expected_s = 8.0 * kGiB / (kGen5GBps * 1e9);
  EXPECT_NEAR(sim::to_seconds(r.time), expected_s, 0.01 * expected_s);
  EXPECT_EQ(r.protocol, Protocol::kSimple);
}

TEST(P2p, AllToAllvOfEqualSharesIsTheAllToAll) {
  Testbed bed(dgx_h100(2));
  const CollectiveResult uniform = bed.run(CollectiveOp::kAllToAll, sim::gib(1), {2, 8});
  const CollectiveResult matrix =
      bed.run(CollectiveOp::kAllToAll, sim::gib(1), {2, 8}, true,
              std::make_shared<PeerBytes>(16 * 16, sim::bytes(sim::gib(1).count / 16)));
  EXPECT_EQ(matrix.time, uniform.time);
}

TEST(P2p, RelayedMessagesToOneRankShareTheRelaysConnection) {
  // 2 x 8 AllToAll: 2 x 8 x 7 = 112 messages inside the nodes, 2 x 8 x 8 = 128 between them.
  // With PXN each node's GPU j relays its 7 peers' messages for remote GPU j on its own
  // connection to it (NCCL_NET_SHARED_COMMS): 2 x 8 network connections of 8 x S/16 each.
  // Without PXN every message between nodes is a connection of its own.
  Testbed bed(dgx_h100(2));
  const Communicator comm{2, 8};
  const CollectiveTiming timing;
  const P2pPlan on =
      make_p2p_plan(*bed.system, CollectiveOp::kAllToAll, sim::gib(1), comm, true, 4);
  ASSERT_EQ(on.messages.size(), 240U);
  const TransferDag shared = p2p_dag(*bed.system, comm, on, timing, false);
  ASSERT_EQ(shared.tasks.size(), 112U + 16U);
  int connections = 0;
  for (const DagTask& task : shared.tasks) {
    double network_bytes = 0.0;
    int copies = 0;
    for (const DagFlow& flow : task.flows) {
      const bool copy = shared.paths[flow.path].size() < 4;  // GPU > NVSwitch > GPU
      copies += copy ? 1 : 0;
      network_bytes += copy ? 0.0 : static_cast<double>(flow.bytes.count);
    }
    if (network_bytes > 0.0) {
      ++connections;
      EXPECT_EQ(copies, 7);
      EXPECT_DOUBLE_EQ(network_bytes, 8.0 * 1073741824.0 / 16.0);
    }
  }
  EXPECT_EQ(connections, 16);
  const P2pPlan off =
      make_p2p_plan(*bed.system, CollectiveOp::kAllToAll, sim::gib(1), comm, false, 4);
  EXPECT_EQ(p2p_dag(*bed.system, comm, off, timing, false).tasks.size(), 240U);
}

TEST(P2p, SharesBelowSixteenKibUseLl) {
  // NCCL_P2P_LL_THRESHOLD: 128 KiB over 16 ranks is 8 KiB a peer (LL); 512 KiB is 32 KiB (Simple).
  Testbed bed(dgx_h100(2));
  EXPECT_EQ(bed.run(CollectiveOp::kAllToAll, sim::kib(128), {2, 8}).protocol, Protocol::kLl);
  EXPECT_EQ(bed.run(CollectiveOp::kAllToAll, sim::kib(512), {2, 8}).protocol, Protocol::kSimple);
  EXPECT_EQ(bed.run(CollectiveOp::kSendRecv, sim::kib(8), {2, 8}).protocol, Protocol::kLl);
}

TEST(P2p, RejectsWhatNcclsPointToPointCallsDoNotTake) {
  Testbed bed(dgx_h100(2));
  CollectiveRequest request;
  request.op = CollectiveOp::kAllToAll;
  request.size = sim::mib(1);
  request.comm = {2, 8};
  CollectiveRequest algorithm = request;
  algorithm.algorithm = Algorithm::kRing;
  EXPECT_THROW(run_collective(*bed.system, bed.network, bed.simulator, algorithm), sim::InputError);
  CollectiveRequest protocol = request;
  protocol.protocol = Protocol::kLl128;
  EXPECT_THROW(run_collective(*bed.system, bed.network, bed.simulator, protocol), sim::InputError);
  CollectiveRequest chunk = request;
  chunk.execution = Execution::kChunk;
  EXPECT_THROW(run_collective(*bed.system, bed.network, bed.simulator, chunk), sim::InputError);
  CollectiveRequest too_many = request;
  too_many.comm = {3, 8};
  EXPECT_THROW(run_collective(*bed.system, bed.network, bed.simulator, too_many), sim::InputError);
  CollectiveRequest not_square = request;
  not_square.peer_bytes = std::make_shared<PeerBytes>(15 * 16);
  EXPECT_THROW(run_collective(*bed.system, bed.network, bed.simulator, not_square),
               sim::InputError);
  CollectiveRequest negative = request;
  negative.peer_bytes = std::make_shared<PeerBytes>(16 * 16, sim::bytes(-1));
  EXPECT_THROW(run_collective(*bed.system, bed.network, bed.simulator, negative), sim::InputError);
  CollectiveRequest sendrecv = request;
  sendrecv.op = CollectiveOp::kSendRecv;
  sendrecv.peer_bytes = std::make_shared<PeerBytes>(16 * 16);
  EXPECT_THROW(run_collective(*bed.system, bed.network, bed.simulator, sendrecv), sim::InputError);
  for (const int per_peer : {0, 65}) {
    CollectiveRequest channels = request;
    channels.channels_per_net_peer = per_peer;
    EXPECT_THROW(run_collective(*bed.system, bed.network, bed.simulator, channels),
                 sim::InputError);
  }
}

}  // namespace
}  // namespace railsim::models
