// File: tests/models/collective/communicator_placement_test.cpp
// Communicators on any nodes and GPUs of a system (Megatron's tensor- and data-parallel groups),
// and several collective calls in flight at once on one network (start_collective): facts from
// the fabric's symmetry and from max-min sharing, never from the program's own output.
#include "models/collective/collective_run.hpp"
#include "models/collective/ring_layout.hpp"
#include "models/hardware/node_presets.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace railsim::models {
namespace {

// dgx-h100 nodes on an aligned, non-blocking fabric (1:1), `nodes_per_leaf` nodes under each
// leaf of each rail.
struct PlacementBed {
  sim::Simulator simulator;
  sim::FlowNetwork network{simulator};
  std::unique_ptr<System> system;

  explicit PlacementBed(int nodes, int nodes_per_leaf = 32) {
    SystemSpec spec;
    spec.node = node_preset("dgx-h100");
    spec.nodes = nodes;
    spec.fabric.rails = RailMapping::kAligned;
    spec.fabric.oversubscription = 1.0;
    spec.fabric.nodes_per_leaf = nodes_per_leaf;
    system = std::make_unique<System>(spec, network);
  }

  CollectiveResult run(const CollectiveRequest& request) {
    return run_collective(*system, network, simulator, request);
  }

  // Scales both directions of the port of `node`'s compute NIC `nic` to `factor` of its rate.
  void scale_nic_port(int node, int nic, double factor) {
    const std::string name = fmt::format(
        "n{}.{}", node,
        system->spec()
            .node
            .nics[static_cast<std::size_t>(system->compute_nics()[static_cast<std::size_t>(nic)])]
            .name);
    int scaled = 0;
    for (std::uint32_t i = 0; i < network.link_count(); ++i) {
      const sim::LinkId id{i};
      const std::string_view link = network.link(id).name;
      if (system->is_node_port_link(id) &&
          (link.starts_with(name + ">") || link.ends_with(">" + name))) {
        network.set_link_capacity(id, network.link(id).capacity * factor);
        ++scaled;
      }
    }
    ASSERT_EQ(scaled, 2) << "the two directions of " << name << "'s port";
  }
};

std::vector<int> range(int from, int to) {
  std::vector<int> ids;
  ids.reserve(static_cast<std::size_t>(to - from));
  for (int i = from; i < to; ++i) {
    ids.push_back(i);
  }
  return ids;
}

// A ring AllReduce, Simple, a fixed channel count: NCCL_ALGO=Ring NCCL_PROTO=Simple.
CollectiveRequest ring_all_reduce(Communicator comm, sim::Bytes size, int channels = 8) {
  CollectiveRequest request;
  request.op = CollectiveOp::kAllReduce;
  request.size = size;
  request.comm = std::move(comm);
  request.algorithm = Algorithm::kRing;
  request.protocol = Protocol::kSimple;
  request.channels = channels;
  return request;
}

double seconds(sim::Duration d) { return sim::to_seconds(d); }

TEST(CommunicatorPlacement, DefaultIdsAreTheFirstNodesAndGpus) {
  const Communicator comm{2, 4};
  EXPECT_EQ(comm.ranks(), 8);
  EXPECT_EQ(comm.system_node(1), 1);
  EXPECT_EQ(comm.system_gpu(3), 3);
  const Communicator placed = communicator_on({4, 6}, {1, 5});
  EXPECT_EQ(placed.nodes, 2);
  EXPECT_EQ(placed.gpus_per_node, 2);
  EXPECT_EQ(placed.system_node(1), 6);
  EXPECT_EQ(placed.system_gpu(1), 5);
  // Rank 3 is local GPU 1 of local node 1: GPU 5 of node 6.
  EXPECT_EQ(placed.system_node(placed.node_of(3)), 6);
  EXPECT_EQ(placed.system_gpu(placed.gpu_of(3)), 5);
}

TEST(CommunicatorPlacement, TheLastFourNodesRunAsFastAsTheFirstFour) {
  // All 8 nodes sit under one leaf per rail and every link of a kind has one rate, so the
  // fabric looks the same from nodes 4..7 as from 0..3: the same ring, the same time.
  PlacementBed first(8);
  PlacementBed last(8);
  const CollectiveResult a =
      first.run(ring_all_reduce(communicator_on(range(0, 4), range(0, 8)), sim::mib(256)));
  const CollectiveResult b =
      last.run(ring_all_reduce(communicator_on(range(4, 8), range(0, 8)), sim::mib(256)));
  EXPECT_GT(a.time, sim::Duration::zero());
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.busbw_GBps, b.busbw_GBps);
}

TEST(CommunicatorPlacement, ATensorParallelGroupOnNodeFiveMatchesNodeZero) {
  // Every node is the same NVSwitch box: {node 5} x {gpus 0..7} is node 0's group elsewhere.
  PlacementBed zero(8);
  PlacementBed five(8);
  const CollectiveResult a =
      zero.run(ring_all_reduce(communicator_on({0}, range(0, 8)), sim::mib(256)));
  const CollectiveResult b =
      five.run(ring_all_reduce(communicator_on({5}, range(0, 8)), sim::mib(256)));
  EXPECT_EQ(a.time, b.time);
  // NVLS on the switch of node 5 as on node 0's.
  CollectiveRequest nvls = ring_all_reduce(communicator_on({0}, range(0, 8)), sim::mib(64));
  nvls.algorithm = Algorithm::kNvls;
  const CollectiveResult c = zero.run(nvls);
  nvls.comm = communicator_on({5}, range(0, 8));
  const CollectiveResult d = five.run(nvls);
  EXPECT_EQ(c.algorithm, Algorithm::kNvls);
  EXPECT_EQ(c.time, d.time);
}

TEST(CommunicatorPlacement, ATreeOnTheLastFourNodesMatchesTheFirstFour) {
  PlacementBed first(8);
  PlacementBed last(8);
  CollectiveRequest tree = ring_all_reduce(communicator_on(range(0, 4), range(0, 8)), sim::mib(64));
  tree.algorithm = Algorithm::kTree;
  const CollectiveResult a = first.run(tree);
  tree.comm = communicator_on(range(4, 8), range(0, 8));
  const CollectiveResult b = last.run(tree);
  EXPECT_EQ(a.algorithm, Algorithm::kTree);
  EXPECT_EQ(a.time, b.time);
}

TEST(CommunicatorPlacement, ADataParallelGroupOfGpuThreeUsesItsOwnRail) {
  // dgx-h100: GPU g shares a PCIe switch with NIC g, which an aligned fabric puts on rail g.
  // The data-parallel group of GPU 3 rides rail 3 as that of GPU 0 rides rail 0: the same time.
  PlacementBed bed(8);
  const Communicator gpu3 = communicator_on(range(0, 4), {3});
  const Communicator gpu0 = communicator_on(range(0, 4), {0});
  const CommNics three_nics(*bed.system, gpu3);
  const CommNics zero_nics(*bed.system, gpu0);
  for (int node = 0; node < 4; ++node) {
    EXPECT_EQ(three_nics.nics(node, 0), std::vector<int>{3});
    EXPECT_EQ(zero_nics.nics(node, 0), std::vector<int>{0});
  }
  const CollectiveResult three = bed.run(ring_all_reduce(gpu3, sim::mib(256), 2));
  const CollectiveResult zero = bed.run(ring_all_reduce(gpu0, sim::mib(256), 2));
  EXPECT_EQ(three.time, zero.time);
  EXPECT_EQ(three.channels, 2);
}

TEST(CommunicatorPlacement, HalvingNodeOnesRailThreePortSlowsOnlyTheGpuThreeGroup) {
  // Each ring hop of a one-GPU-per-node group goes GPU -> PCIe switch -> NIC -> leaf -> NIC ->
  // PCIe switch -> GPU, all on the GPU's rail; a ring moves at its slowest hop's pace. Halving
  // node 1's rail-3 port (both directions) leaves the rail-0 group untouched and cuts the
  // rail-3 group's pace from B (the slowest link of a hop) to min(B, P / 2), P the port rate:
  // its bandwidth term grows by B / min(B, P / 2), and its latency, the same, does not.
  PlacementBed healthy(4);
  PlacementBed faulty(4);
  faulty.scale_nic_port(1, 3, 0.5);
  const sim::Bytes size = sim::mib(256);
  const CollectiveResult gpu0_healthy =
      healthy.run(ring_all_reduce(communicator_on(range(0, 4), {0}), size, 2));
  const CollectiveResult gpu3_healthy =
      healthy.run(ring_all_reduce(communicator_on(range(0, 4), {3}), size, 2));
  const CollectiveResult gpu0_faulty =
      faulty.run(ring_all_reduce(communicator_on(range(0, 4), {0}), size, 2));
  const CollectiveResult gpu3_faulty =
      faulty.run(ring_all_reduce(communicator_on(range(0, 4), {3}), size, 2));
  EXPECT_EQ(gpu0_faulty.time, gpu0_healthy.time);
  EXPECT_GT(gpu3_faulty.time, gpu3_healthy.time);

  // B and P from the links of the hop out of node 1 on rail 3.
  const int nic = 3;
  double slowest = 1e300;
  double port = 0.0;
  for (const sim::LinkId link :
       healthy.system->route(Endpoint{1, nic, 3}, Endpoint{2, nic, 3}, 0)) {
    slowest = std::min(slowest, healthy.network.link(link).capacity.bytes_per_s);
    if (healthy.system->is_node_port_link(link) && port == 0.0) {
      port = healthy.network.link(link).capacity.bytes_per_s;
    }
  }
  ASSERT_GT(port, 0.0);
  const double growth = slowest / std::min(slowest, port / 2.0);
  // The bandwidth term alone: the time of twice the size less the time of the size, each pass
  // of the ring being proportional to the bytes it moves.
  const CollectiveResult gpu3_double =
      healthy.run(ring_all_reduce(communicator_on(range(0, 4), {3}), size * 2, 2));
  const double bandwidth_s = seconds(gpu3_double.time) - seconds(gpu3_healthy.time);
  const double expected = seconds(gpu3_healthy.time) + (growth - 1.0) * bandwidth_s;
  EXPECT_NEAR(seconds(gpu3_faulty.time), expected, 0.03 * expected);
}

// Steps `simulator` until every call has finished.
void run_all(sim::Simulator& simulator, const std::vector<const CollectiveCall*>& calls) {
  const auto pending = [&] {
    for (const CollectiveCall* call : calls) {
      if (!call->finished()) {
        return true;
      }
    }
    return false;
  };
  while (pending()) {
    ASSERT_TRUE(simulator.step()) << "calls in flight always have an event pending";
  }
}

TEST(ConcurrentCollectives, CallsOnDisjointLeavesEachTakeTheirTimeAlone) {
  // Two nodes per leaf: {0, 1} and {2, 3} each stay under their own leaf on every rail, and
  // nothing else joins them (NVLink and PCIe are per node), so started together each call has
  // every link it uses to itself, as when it runs alone.
  const sim::Bytes size = sim::mib(64);
  const Communicator low = communicator_on({0, 1}, range(0, 8));
  const Communicator high = communicator_on({2, 3}, range(0, 8));
  PlacementBed alone_low(4, 2);
  PlacementBed alone_high(4, 2);
  const CollectiveResult low_alone = alone_low.run(ring_all_reduce(low, size));
  const CollectiveResult high_alone = alone_high.run(ring_all_reduce(high, size));

  PlacementBed bed(4, 2);
  std::vector<CollectiveResult> results;
  int low_done = 0;
  int high_done = 0;
  const auto a = start_collective(*bed.system, bed.network, bed.simulator,
                                  ring_all_reduce(low, size), [&](const CollectiveResult& r) {
                                    ++low_done;
                                    results.push_back(r);
                                  });
  const auto b = start_collective(*bed.system, bed.network, bed.simulator,
                                  ring_all_reduce(high, size), [&](const CollectiveResult& r) {
                                    ++high_done;
                                    results.push_back(r);
                                  });
  EXPECT_FALSE(a->finished());
  EXPECT_FALSE(b->finished());
  run_all(bed.simulator, {a.get(), b.get()});
  EXPECT_EQ(low_done, 1);
  EXPECT_EQ(high_done, 1);
  ASSERT_EQ(results.size(), 2U);
  EXPECT_EQ(a->result().time, low_alone.time);
  EXPECT_EQ(b->result().time, high_alone.time);
  // Nothing more happens after both are done: the callbacks ran once each.
  bed.simulator.run();
  EXPECT_EQ(low_done, 1);
  EXPECT_EQ(high_done, 1);
}

// Two AllReduces of `size` on the same communicator, started together: their results.
std::vector<CollectiveResult> twice_at_once(const Communicator& comm,
                                            sim::Bytes size,
                                            std::optional<Execution> execution) {
  PlacementBed bed(2);
  std::vector<CollectiveResult> results;
  CollectiveRequest request = ring_all_reduce(comm, size);
  request.execution = execution;
  std::vector<std::unique_ptr<CollectiveCall>> calls;
  calls.reserve(2);
  for (int i = 0; i < 2; ++i) {
    calls.push_back(start_collective(*bed.system, bed.network, bed.simulator, request,
                                     [&](const CollectiveResult& r) { results.push_back(r); }));
  }
  run_all(bed.simulator, {calls[0].get(), calls[1].get()});
  return results;
}

class SharedLinks : public ::testing::TestWithParam<Execution> {};

TEST_P(SharedLinks, TwoCallsOnOneCommunicatorEachTakeTwiceTheBandwidthTerm) {
  // The same 16 ranks twice: every flow of one call has a twin on the same links, so max-min
  // gives each half of what one call alone gets. A call alone takes T(S) = L + S / R (L its
  // latencies, R its rate); two at once each move S at R / 2 with the same latencies, L + 2 S / R
  // = T(2 S): the time one call alone takes for twice the size.
  const Communicator comm{2, 8};
  const sim::Bytes size = sim::mib(128);
  PlacementBed alone(2);
  CollectiveRequest single = ring_all_reduce(comm, size);
  single.execution = GetParam();
  const CollectiveResult one = alone.run(single);
  single.size = size * 2;
  const CollectiveResult doubled = alone.run(single);

  const std::vector<CollectiveResult> both = twice_at_once(comm, size, GetParam());
  ASSERT_EQ(both.size(), 2U);
  for (const CollectiveResult& r : both) {
    EXPECT_GT(r.time, one.time);
    EXPECT_NEAR(seconds(r.time), seconds(doubled.time), 0.03 * seconds(doubled.time));
  }
}

INSTANTIATE_TEST_SUITE_P(BothExecutions,
                         SharedLinks,
                         ::testing::Values(Execution::kChunk, Execution::kPipelined),
                         [](const auto& p) { return std::string(execution_name(p.param)); });

TEST(ConcurrentCollectives, TwoIdenticalRunsGiveIdenticalResults) {
  const Communicator comm{2, 8};
  const std::vector<CollectiveResult> first = twice_at_once(comm, sim::mib(16), std::nullopt);
  const std::vector<CollectiveResult> second = twice_at_once(comm, sim::mib(16), std::nullopt);
  ASSERT_EQ(first.size(), 2U);
  ASSERT_EQ(second.size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(first[i].time, second[i].time);
    EXPECT_EQ(first[i].busbw_GBps, second[i].busbw_GBps);
  }
}

TEST(ConcurrentCollectives, RunCollectiveIsStartThenWait) {
  PlacementBed started(2);
  PlacementBed ran(2);
  const CollectiveRequest request = ring_all_reduce(Communicator{2, 8}, sim::mib(4));
  int calls = 0;
  const auto call = start_collective(*started.system, started.network, started.simulator, request,
                                     [&](const CollectiveResult&) { ++calls; });
  EXPECT_EQ(call->result().algorithm, Algorithm::kRing);
  EXPECT_EQ(call->result().channels, 8);
  run_all(started.simulator, {call.get()});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(call->result().time, ran.run(request).time);
}

TEST(CommunicatorPlacement, TraceLabelsNameTheSystemNodeAndGpu) {
  // {nodes 4, 6} x {gpus 1, 5}: rank 3 is local GPU 1 of local node 1, GPU 5 of node 6.
  sim::Trace recorded;
  const CollectiveTrace trace(recorded, communicator_on({4, 6}, {1, 5}));
  const std::vector<sim::TraceProcess>& processes = recorded.processes();
  ASSERT_EQ(processes.size(), 5U);  // "collectives", then the 4 ranks
  EXPECT_EQ(processes[1].name, "rank 0: node 4 gpu 1");
  EXPECT_EQ(processes[4].name, "rank 3: node 6 gpu 5");
}

TEST(CommunicatorPlacement, BadIdsAreInputErrors) {
  PlacementBed bed(8);
  const auto message = [&](const Communicator& comm) -> std::string {
    try {
      bed.run(ring_all_reduce(comm, sim::mib(1)));
    } catch (const sim::InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message(communicator_on({0, 99}, {0})).find("node id 99"), std::string::npos);
  EXPECT_NE(message(communicator_on({0, 1}, {2, 2})).find("gpu id 2 (entry 1) is listed twice"),
            std::string::npos);
  EXPECT_NE(message(communicator_on({3, 3}, {0})).find("node id 3 (entry 1) is listed twice"),
            std::string::npos);
  EXPECT_NE(message(communicator_on({0}, {8})).find("gpu id 8"), std::string::npos);
  // Ids for fewer nodes than the communicator has.
  EXPECT_NE(message(Communicator{2, 1, {0}, {}}).find("1 node ids for 2 nodes"), std::string::npos);
  // And nothing was started by the failed calls: the simulator has nothing to do.
  EXPECT_EQ(bed.simulator.events_pending(), 0U);
  EXPECT_THROW(start_collective(*bed.system, bed.network, bed.simulator,
                                ring_all_reduce(communicator_on({0, 99}, {0}), sim::mib(1)), {}),
               sim::InputError);
  EXPECT_EQ(bed.simulator.events_pending(), 0U);
}

}  // namespace
}  // namespace railsim::models
