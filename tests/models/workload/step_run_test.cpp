// File: tests/models/workload/step_run_test.cpp
// A training step's time against closed forms built from its parts: compute durations and the
// times of its collectives, each run alone on an idle system of the same kind.
#include "models/workload/step_run.hpp"

#include "tests/models/workload/step_bed.hpp"

#include "models/workload/dp_generator.hpp"
#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>

namespace railsim::models {
namespace {

CollectiveRequest ring_simple(sim::Bytes size, Communicator comm) {
  CollectiveRequest request;
  request.op = CollectiveOp::kAllReduce;
  request.size = size;
  request.comm = std::move(comm);
  request.algorithm = Algorithm::kRing;
  request.protocol = Protocol::kSimple;
  return request;
}

DpShape dp_shape(int nodes, int gpus, bool overlap) {
  DpShape shape;
  shape.nodes = iota(nodes);
  shape.gpus_per_node = gpus;
  shape.gradient_bytes = sim::mib(256);
  shape.bucket = sim::mib(64);  // four equal buckets
  shape.forward = sim::ms(10);
  shape.backward = sim::ms(20);
  shape.optimizer = sim::ms(1);
  shape.overlap = overlap;
  shape.nccl.algorithm = Algorithm::kRing;
  shape.nccl.protocol = Protocol::kSimple;
  return shape;
}

TEST(StepRun, WithoutOverlapIsComputePlusEachAllReduce) {
  // forward + backward + 4 AllReduces of 64 MiB one after another + optimizer.
  const DpShape shape = dp_shape(2, 8, false);
  const sim::Duration allreduce =
      Bed(2).collective(ring_simple(sim::mib(64), communicator_on(iota(2), iota(8))));
  const StepResult result = Bed(2).step(make_dp_step(shape));
  const sim::Duration expected = sim::ms(10) + sim::ms(20) + 4 * allreduce + sim::ms(1);
  EXPECT_NEAR(ms(result.step_time), ms(expected), 1e-6);  // a picosecond or so of rounding
  // Every rank computed 31 ms; the rest of the step it waited.
  for (std::size_t r = 0; r < result.compute_time.size(); ++r) {
    EXPECT_EQ(result.compute_time[r], sim::ms(31));
  }
  EXPECT_NEAR(result.comm_wait_fraction(), ms(4 * allreduce) / ms(expected), 1e-9);
}

TEST(StepRun, TellsTheCallerOfEveryPhaseInstanceItEnds) {
  // forward, the backward pass in four parts (one per bucket) and optimizer on each of 16 ranks,
  // four AllReduces on one group: 100.
  const StepWorkload workload = make_dp_step(dp_shape(2, 8, false));
  EXPECT_EQ(phase_instance_count(workload), (1U + 4U + 1U) * 16U + 4U);
  StepOptions options;
  std::size_t told = 0;
  options.instance_finished = [&told] { ++told; };
  const StepResult result = Bed(2).step(workload, options);
  EXPECT_EQ(told, result.runs.size());
  EXPECT_EQ(told, phase_instance_count(workload));
}

TEST(StepRun, FullOverlapTakesTheLongerOfComputeAndCommunication) {
  // A compute phase and an AllReduce with no dependency between them run side by side.
  const Communicator world = communicator_on(iota(2), iota(8));
  const sim::Duration allreduce = Bed(2).collective(ring_simple(sim::mib(512), world));
  for (const sim::Duration compute : {allreduce / 2, allreduce * 2}) {
    StepWorkload step;
    step.nodes = iota(2);
    step.gpus_per_node = 8;
    step.communicators.push_back({"dp", {world}});
    step.phases.push_back({"compute", ComputeTask{compute}, {}});
    step.phases.push_back({"allreduce", CollectiveTask{ring_simple(sim::mib(512), world), 0}, {}});
    const StepResult result = Bed(2).step(step);
    const double expected = ms(std::max(compute, allreduce));
    EXPECT_NEAR(ms(result.step_time), expected, 0.01 * expected);
  }
}

TEST(StepRun, OverlappedBucketsHideBehindTheBackwardPass) {
  // Each 64 MiB AllReduce is shorter than the 5 ms of backward pass that produces the next
  // bucket, so only the last one shows: forward + backward + one AllReduce + optimizer.
  const DpShape shape = dp_shape(2, 8, true);
  const sim::Duration allreduce =
      Bed(2).collective(ring_simple(sim::mib(64), communicator_on(iota(2), iota(8))));
  ASSERT_LT(allreduce, sim::ms(5));
  const StepResult result = Bed(2).step(make_dp_step(shape));
  EXPECT_NEAR(ms(result.step_time), ms(sim::ms(31) + allreduce), 1e-6);
  // The critical path ends with the last bucket's AllReduce and the optimizer.
  ASSERT_GE(result.critical_path.size(), 2U);
  const PhaseRun& last = result.runs[static_cast<std::size_t>(result.critical_path.back())];
  EXPECT_FALSE(last.collective.has_value());
  const PhaseRun& before =
      result.runs[static_cast<std::size_t>(result.critical_path[result.critical_path.size() - 2])];
  ASSERT_TRUE(before.collective.has_value());
  EXPECT_EQ(before.end - before.start, allreduce);
}

TEST(StepRun, CommunicationBoundBucketsQueueOnTheirStream) {
  // Buckets whose AllReduce outlasts the backward slice that feeds them queue up behind each
  // other: forward + the first slice + four AllReduces back to back + optimizer.
  DpShape shape = dp_shape(2, 8, true);
  shape.backward = sim::us(400);  // 100 us per bucket
  const sim::Duration allreduce =
      Bed(2).collective(ring_simple(sim::mib(64), communicator_on(iota(2), iota(8))));
  ASSERT_GT(allreduce, sim::us(100));
  const StepResult result = Bed(2).step(make_dp_step(shape));
  EXPECT_NEAR(ms(result.step_time), ms(sim::ms(10) + sim::us(100) + 4 * allreduce + sim::ms(1)),
              1e-6);
}

TEST(StepRun, ASlowNicPortSlowsATwoNodeRingByTheClosedForm) {
  // Two nodes, one GPU each: a ring AllReduce of S sends 2(n-1)/n x S = S bytes each way, at the
  // pace of the slowest link of the two routes (B_min: PCIe or a NIC port). With node 1's port
  // to its leaf at half its payload rate B, the pace is min(B_min, B / 2) = B / 2, so the step
  // grows by S / (B / 2) - S / B_min; compute and latencies are unchanged.
  const sim::Bytes size = sim::gib(1);
  const Communicator pair = communicator_on(iota(2), {0});
  StepWorkload step;
  step.nodes = iota(2);
  step.gpus_per_node = 1;
  step.communicators.push_back({"dp", {pair}});
  step.phases.push_back({"backward", ComputeTask{sim::ms(5)}, {}});
  step.phases.push_back({"allreduce", CollectiveTask{ring_simple(size, pair), 0}, {0}});

  Bed healthy(2);
  const sim::Duration healthy_time = healthy.step(step).step_time;
  Bed faulty(2);
  const System& system = *faulty.system;
  const int nic = system.nearest_compute_nic(0, 0);
  const std::vector<sim::LinkId> one_to_zero = system.route({1, nic, 0}, {0, nic, 0});
  const std::vector<sim::LinkId> zero_to_one = system.route({0, nic, 0}, {1, nic, 0});
  double slowest = std::numeric_limits<double>::infinity();
  for (const auto* route : {&one_to_zero, &zero_to_one}) {
    for (const sim::LinkId link : *route) {
      slowest = std::min(slowest, faulty.network.link(link).capacity.bytes_per_s);
    }
  }
  const auto port = std::find_if(one_to_zero.begin(), one_to_zero.end(),
                                 [&](sim::LinkId link) { return system.is_node_port_link(link); });
  ASSERT_NE(port, one_to_zero.end());
  const double payload = faulty.network.link(*port).capacity.bytes_per_s;
  ASSERT_LT(payload / 2.0, slowest);
  faulty.network.set_link_capacity(*port, sim::Bandwidth{payload / 2.0});
  const sim::Duration faulty_time = faulty.step(step).step_time;

  const double bytes = static_cast<double>(size.count);
  const double expected_ms = (bytes / (payload / 2.0) - bytes / slowest) * 1e3;
  EXPECT_NEAR(ms(faulty_time - healthy_time), expected_ms, 0.01 * expected_ms);
}

TEST(StepRun, AStragglerSetsEveryonesPace) {
  // One GPU 20% slower: its compute is 1.2 x, and the AllReduce after it waits for it.
  const Communicator world = communicator_on(iota(2), iota(8));
  StepWorkload step;
  step.nodes = iota(2);
  step.gpus_per_node = 8;
  step.communicators.push_back({"dp", {world}});
  step.phases.push_back({"backward", ComputeTask{sim::ms(10)}, {}});
  step.phases.push_back({"allreduce", CollectiveTask{ring_simple(sim::mib(64), world), 0}, {0}});
  const sim::Duration allreduce = Bed(2).collective(ring_simple(sim::mib(64), world));
  StepOptions options;
  options.stragglers.push_back({1, 5, 1.2});
  const StepResult result = Bed(2).step(step, options);
  EXPECT_NEAR(ms(result.step_time), ms(sim::ms(12) + allreduce), 1e-6);
  // The straggler (node 1 GPU 5 = rank 13) waited only for the AllReduce; the others also 2 ms.
  EXPECT_EQ(result.idle_time(13), result.step_time - sim::ms(12));
  EXPECT_EQ(result.idle_time(0), result.step_time - sim::ms(10));
  const PhaseRun& first = result.runs[static_cast<std::size_t>(result.critical_path.front())];
  EXPECT_EQ(first.instance, 13);
}

TEST(StepRun, GroupsOfOneCommunicatorRunConcurrently) {
  // Data-parallel groups per GPU index (beside tensor parallelism): 8 AllReduces at once, each
  // on its own rail of an aligned fabric, so together they take as long as one alone.
  StepWorkload step;
  step.nodes = iota(2);
  step.gpus_per_node = 8;
  StepCommunicator dp{"dp", {}};
  for (int g = 0; g < 8; ++g) {
    dp.groups.push_back(communicator_on(iota(2), {g}));
  }
  step.communicators.push_back(dp);
  step.phases.push_back(
      {"allreduce", CollectiveTask{ring_simple(sim::mib(256), dp.groups[0]), 0}, {}});
  const sim::Duration alone = Bed(2).collective(ring_simple(sim::mib(256), dp.groups[0]));
  const StepResult result = Bed(2).step(step);
  EXPECT_EQ(result.runs.size(), 8U);
  EXPECT_NEAR(ms(result.step_time), ms(alone), 0.01 * ms(alone));
}

TEST(StepRun, ComputeOnSomeRanksKeepsEachRanksOwnStream) {
  // "a" runs on rank 0 for 5 ms, "b" on rank 1 for 3 ms, side by side; "c" on both waits for
  // "a" only where "a" ran, and on rank 1 follows "b" on its compute stream.
  StepWorkload step;
  step.nodes = iota(1);
  step.gpus_per_node = 2;
  step.phases.push_back({"a", ComputeTask{sim::ms(5)}, {}, {0}});
  step.phases.push_back({"b", ComputeTask{sim::ms(3)}, {}, {1}});
  step.phases.push_back({"c", ComputeTask{sim::ms(1)}, {0}});
  const StepResult result = Bed(1).step(step);
  EXPECT_EQ(result.step_time, sim::ms(6));
  EXPECT_EQ(result.compute_time, (std::vector<sim::Duration>{sim::ms(6), sim::ms(4)}));
  const auto c_on_rank_1 =
      std::find_if(result.runs.begin(), result.runs.end(),
                   [](const PhaseRun& r) { return r.phase == 2 && r.instance == 1; });
  ASSERT_NE(c_on_rank_1, result.runs.end());
  EXPECT_EQ(c_on_rank_1->end - c_on_rank_1->start, sim::ms(1));
  EXPECT_EQ(c_on_rank_1->end, result.runs.front().ready + sim::ms(4));
}

TEST(StepValidate, RejectsARankInTwoGroupsAndGroupsOutsideTheJob) {
  StepWorkload step;
  step.nodes = iota(2);
  step.gpus_per_node = 8;
  // A communicator need not hold every rank (a pipeline stage's), but its groups are disjoint.
  step.communicators.push_back({"dp", {communicator_on(iota(2), {0, 1})}});
  EXPECT_NO_THROW(validate(step));
  step.communicators[0].groups.push_back(communicator_on({1}, {1, 2}));
  try {
    validate(step);
    FAIL() << "expected an error";
  } catch (const sim::InputError& e) {
    EXPECT_STREQ(e.what(),
                 "communicator dp: rank 9 (node 1 GPU 1) is in two of its groups, expected at "
                 "most one");
  }
  step.communicators[0].groups = {communicator_on({0, 1, 2}, iota(8))};
  EXPECT_THROW(validate(step), sim::InputError);  // node 2 is not the job's
}

TEST(StepValidate, RejectsAPhaseWaitingForALaterOne) {
  StepWorkload step;
  step.nodes = iota(1);
  step.gpus_per_node = 1;
  step.phases.push_back({"a", ComputeTask{sim::ms(1)}, {1}});
  step.phases.push_back({"b", ComputeTask{sim::ms(1)}, {}});
  EXPECT_THROW(validate(step), sim::InputError);
}

}  // namespace
}  // namespace railsim::models

namespace railsim::models {
namespace {

TEST(StepRun, ReplayedCallsMatchSimulatedOnes) {
  // A DP step's equal buckets: simulating every call and replaying the repeats agree to the
  // picosecond, bytes per link included.
  DpShape shape = dp_shape(2, 8, true);
  shape.backward = sim::us(400);
  shape.nccl = {};
  StepOptions simulate_all;
  simulate_all.reuse_identical_calls = false;
  const StepResult simulated = Bed(2).step(make_dp_step(shape), simulate_all);
  const StepResult replayed = Bed(2).step(make_dp_step(shape));
  EXPECT_EQ(simulated.step_time, replayed.step_time);
  ASSERT_EQ(simulated.link_bytes.size(), replayed.link_bytes.size());
  for (std::size_t l = 0; l < simulated.link_bytes.size(); ++l) {
    EXPECT_NEAR(simulated.link_bytes[l], replayed.link_bytes[l],
                1e-9 * std::max(1.0, simulated.link_bytes[l]));
  }
}

}  // namespace
}  // namespace railsim::models

namespace railsim::models {
namespace {

StepWorkload pair_job(std::vector<int> nodes, sim::Bytes size) {
  const Communicator pair = communicator_on(nodes, {0});
  StepWorkload step;
  step.nodes = std::move(nodes);
  step.gpus_per_node = 1;
  step.communicators.push_back({"dp", {pair}});
  step.phases.push_back({"allreduce", CollectiveTask{ring_simple(size, pair), 0}, {}});
  return step;
}

TEST(StepRuns, JobsThatShareAnUplinkSlowEachOtherDown) {
  // Four nodes, two per leaf, one uplink per leaf (2:1). Job A on nodes 0 and 2, job B on 1
  // and 3: both rings cross rail 0's single uplink out of each leaf. Alone, a 1 GiB AllReduce
  // of two ranks moves S each way at the pace of its slowest link, B_min; together the uplink's
  // payload rate U is split between the two jobs, so each takes S / min(B_min, U / 2). Both
  // also post each ring step: NCCL's 4 channels for one NIC a node, 64 loops of 2 steps each,
  // 127 posts of 3 us after the first (collective_timing.hpp).
  SystemSpec spec;
  spec.node = node_preset("dgx-h100");
  spec.nodes = 4;
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.oversubscription = 2.0;
  const sim::Bytes size = sim::gib(1);
  const auto make = [&](sim::FlowNetwork& network) {
    return std::make_unique<System>(spec, network);
  };
  sim::Simulator alone_sim;
  sim::FlowNetwork alone_net(alone_sim);
  const auto alone_system = make(alone_net);
  const sim::Duration alone =
      run_step(*alone_system, alone_net, alone_sim, pair_job({0, 2}, size), {}).step_time;

  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const auto system = make(net);
  const int nic = system->nearest_compute_nic(0, 0);
  double slowest = std::numeric_limits<double>::infinity();
  double uplink = 0.0;
  for (const sim::LinkId link : system->route({0, nic, 0}, {2, nic, 0})) {
    slowest = std::min(slowest, net.link(link).capacity.bytes_per_s);
    if (system->is_spine_link(link)) {
      uplink = net.link(link).capacity.bytes_per_s;
    }
  }
  ASSERT_GT(uplink, 0.0);
  const std::vector<StepResult> shared =
      run_steps(*system, net, sim, {pair_job({0, 2}, size), pair_job({1, 3}, size)}, {});
  const double bytes = static_cast<double>(size.count);
  const double posts_ms = 127 * 3e-3;
  EXPECT_NEAR(ms(alone), bytes / slowest * 1e3 + posts_ms, 0.01 * ms(alone));
  for (const StepResult& job : shared) {
    const double expected_ms = bytes / std::min(slowest, uplink / 2.0) * 1e3 + posts_ms;
    EXPECT_NEAR(ms(job.step_time), expected_ms, 0.02 * expected_ms);
  }
}

TEST(StepRuns, JobsOnTheirOwnRailsRunAsIfAlone) {
  // Rail-aligned, one leaf per rail: two jobs on disjoint nodes share no link.
  Bed alone(4);
  const sim::Duration t = alone.step(pair_job({0, 1}, sim::mib(256))).step_time;
  Bed both(4);
  const std::vector<StepResult> results =
      run_steps(*both.system, both.network, both.simulator,
                {pair_job({0, 1}, sim::mib(256)), pair_job({2, 3}, sim::mib(256))}, {});
  EXPECT_EQ(results[0].step_time, t);
  EXPECT_EQ(results[1].step_time, t);
  EXPECT_THROW(run_steps(*both.system, both.network, both.simulator,
                         {pair_job({0, 1}, sim::mib(1)), pair_job({1, 2}, sim::mib(1))}, {}),
               sim::InputError);
}

}  // namespace
}  // namespace railsim::models
