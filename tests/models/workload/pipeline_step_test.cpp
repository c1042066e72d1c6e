// File: tests/models/workload/pipeline_step_test.cpp
// Pipeline and tensor parallelism: sends against the route's closed form, the 3d generator's
// phases and bytes against the shape by hand, and its steps against 1F1B's closed form.
#include "tests/models/workload/step_bed.hpp"

#include "models/workload/megatron_generator.hpp"
#include "models/workload/send_call.hpp"
#include "models/workload/step_run.hpp"
#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace railsim::models {
namespace {

// A step of one send of `size` over `pair`.
StepWorkload send_step(const std::vector<int>& nodes,
                       int gpus,
                       Communicator pair,
                       sim::Bytes size) {
  StepWorkload step;
  step.nodes = nodes;
  step.gpus_per_node = gpus;
  step.communicators.push_back({"pp", {std::move(pair)}});
  step.phases.push_back({"send", SendTask{size, 0}, {}});
  return step;
}

TEST(Send, BetweenNodesTakesTheSizeAtTheRoutesSlowestLinkPlusItsLatency) {
  // GPU 0 of node 0 to GPU 0 of node 1: out of the nearest NIC, through the rail's leaf, in
  // through node 1's nearest NIC. NCCL's 4 channels (50 GB/s / 14 GB/s, rounded up) share the
  // one path, so together they move at its slowest link.
  Bed bed(2);
  const int nic = bed.system->nearest_compute_nic(0, 0);
  const std::vector<sim::LinkId> route = bed.system->route({0, nic, 0}, {1, nic, 0});
  const sim::Bytes size = sim::gib(1);
  const double expected_ms =
      static_cast<double>(size.count) / bed.slowest(route) * 1e3 + ms(bed.latency(route));
  const StepResult result = bed.step(send_step({0, 1}, 1, communicator_on({0, 1}, {0}), size));
  EXPECT_NEAR(ms(result.step_time), expected_ms, 1e-3 * expected_ms);
  ASSERT_TRUE(result.runs.front().busiest_link.has_value());
  EXPECT_FALSE(result.runs.front().collective.has_value());
}

TEST(Send, TheOtherWayRoundAndInsideANode) {
  Bed bed(2);
  const sim::Bytes size = sim::mib(512);
  const double bytes = static_cast<double>(size.count);
  // Node 1 to node 0: the pair's order is the direction.
  const int nic = bed.system->nearest_compute_nic(0, 3);
  const std::vector<sim::LinkId> back = bed.system->route({1, nic, 3}, {0, nic, 3});
  const double back_ms = bytes / bed.slowest(back) * 1e3 + ms(bed.latency(back));
  EXPECT_NEAR(ms(bed.step(send_step({0, 1}, 8, communicator_on({1, 0}, {3}), size)).step_time),
              back_ms, 1e-3 * back_ms);
  // GPU 2 to GPU 5 of node 1: NVLink through the NVSwitch.
  Bed inside(2);
  const std::vector<sim::LinkId> nvlink = inside.system->route_in_node(1, 2, 5);
  const double nvlink_ms = bytes / inside.slowest(nvlink) * 1e3 + ms(inside.latency(nvlink));
  EXPECT_NEAR(ms(inside.step(send_step({0, 1}, 8, communicator_on({1}, {2, 5}), size)).step_time),
              nvlink_ms, 1e-3 * nvlink_ms);
}

TEST(Send, NeedsPairs) {
  StepWorkload step = send_step({0, 1}, 2, communicator_on({0, 1}, {0, 1}), sim::mib(1));
  EXPECT_THROW(validate(step), sim::InputError);
}

// 4 layers of hidden 1024 over sequences of 1024: per layer 24 b s h^2 + 4 b s^2 h = 28 x 2^30
// FLOPs forward.
MegatronShape small_shape(int nodes, int gpus, int tp, int pp, int microbatches) {
  MegatronShape shape;
  shape.nodes = iota(nodes);
  shape.gpus_per_node = gpus;
  shape.tp = tp;
  shape.pp = pp;
  shape.layers = 4;
  shape.hidden = 1024;
  shape.sequence = 1024;
  shape.microbatches = microbatches;
  shape.achieved_tflops = 100.0;
  return shape;
}

std::vector<std::string> compute_order(const StepWorkload& step, int rank) {
  std::vector<std::string> names;
  for (const Phase& phase : step.phases) {
    if (std::holds_alternative<ComputeTask>(phase.task) &&
        std::find(phase.ranks.begin(), phase.ranks.end(), rank) != phase.ranks.end()) {
      names.push_back(phase.name);
    }
  }
  return names;
}

TEST(MegatronStep, ComputeRunsIn1F1BOrderOnEachStage) {
  // pp 4, 6 micro-batches: stage 0 warms up with 3 forwards, stage 3 with none.
  const StepWorkload step = make_megatron_step(small_shape(4, 1, 1, 4, 6));
  validate(step);
  EXPECT_EQ(
      compute_order(step, 0),
      (std::vector<std::string>{"fwd.0.0", "fwd.0.1", "fwd.0.2", "fwd.0.3", "bwd.0.0", "fwd.0.4",
                                "bwd.0.1", "fwd.0.5", "bwd.0.2", "bwd.0.3", "bwd.0.4", "bwd.0.5"}));
  EXPECT_EQ(
      compute_order(step, 3),
      (std::vector<std::string>{"fwd.3.0", "bwd.3.0", "fwd.3.1", "bwd.3.1", "fwd.3.2", "bwd.3.2",
                                "fwd.3.3", "bwd.3.3", "fwd.3.4", "bwd.3.4", "fwd.3.5", "bwd.3.5"}));
  // 4 x 6 forwards and backwards, 3 x 6 sends each way; dp 1 and tp 1: no collectives.
  EXPECT_EQ(step.phases.size(), std::size_t{48 + 36});
}

TEST(MegatronStep, BytesAndTimesFollowTheShape) {
  // 4 nodes of 8 GPUs, tp 4, pp 2, so dp 4 and each stage on 2 nodes.
  MegatronShape shape = small_shape(4, 8, 4, 2, 2);
  const StepWorkload step = make_megatron_step(shape);
  validate(step);
  EXPECT_EQ(megatron_dp(shape), 4);
  const auto phase = [&step](const std::string& name) -> const Phase& {
    const auto it = std::find_if(step.phases.begin(), step.phases.end(),
                                 [&](const Phase& p) { return p.name == name; });
    if (it == step.phases.end()) {
      throw std::runtime_error("no phase " + name);
    }
    return *it;
  };
  // 2 layers x 28 x 2^30 FLOPs / tp 4 at 100 TFLOP/s.
  const double forward_s = 2.0 * 28.0 * 1073741824.0 / 4.0 / 100e12;
  EXPECT_NEAR(sim::to_seconds(std::get<ComputeTask>(phase("fwd.1.0").task).duration), forward_s,
              1e-12);
  EXPECT_NEAR(sim::to_seconds(std::get<ComputeTask>(phase("bwd.1.0").task).duration),
              2.0 * forward_s, 1e-12);
  // Two AllReduces of b s h x 2 bytes per layer of the stage.
  const auto& tp = std::get<CollectiveTask>(phase("fwd_tp.0.1").task);
  EXPECT_EQ(tp.request.size.count, 1024 * 1024 * 2);
  EXPECT_EQ(tp.calls, 4);
  EXPECT_EQ(step.communicators[static_cast<std::size_t>(tp.communicator)].groups.size(), 4U);
  EXPECT_EQ(std::get<SendTask>(phase("send_fwd.0.1").task).size.count, 1024 * 1024 * 2);
  // 12 L h^2 parameters over tp x pp = 8 shards, 2 bytes each.
  const auto& dp = std::get<CollectiveTask>(phase("dp_allreduce.1").task);
  EXPECT_EQ(dp.request.size.count, 12LL * 4 * 1024 * 1024 / 8 * 2);
  const StepCommunicator& dp_comm = step.communicators[static_cast<std::size_t>(dp.communicator)];
  ASSERT_EQ(dp_comm.groups.size(), 4U);  // one per tensor-parallel index
  // dp group of tp index 1 on stage 1: nodes 2 and 3, GPUs 1 and 5.
  EXPECT_EQ(dp_comm.groups[1].node_ids, (std::vector<int>{2, 3}));
  EXPECT_EQ(dp_comm.groups[1].gpu_ids, (std::vector<int>{1, 5}));
}

TEST(MegatronStep, ShapesThatDoNotFitAreErrors) {
  EXPECT_THROW(make_megatron_step(small_shape(2, 8, 3, 1, 1)), sim::InputError);  // tp | G
  EXPECT_THROW(make_megatron_step(small_shape(3, 8, 8, 2, 1)), sim::InputError);  // tp pp | ranks
  EXPECT_THROW(make_megatron_step(small_shape(2, 8, 2, 8, 1)), sim::InputError);  // whole nodes
  EXPECT_THROW(make_megatron_step(small_shape(3, 1, 1, 3, 1)), sim::InputError);  // 4 layers / 3
}

TEST(MegatronStep, A1F1BPipelineTakesMPlusPMinusOnePasses) {
  // pp 4 on 4 nodes of one GPU, 8 micro-batches, each pass's compute long against its send (64
  // KiB of activations, microseconds): the step is (m + p - 1)(f + b), f the forward pass of
  // one stage and b = 2f (Narayanan et al. 2021, the 1F1B schedule's bubble).
  MegatronShape shape = small_shape(4, 1, 1, 4, 8);
  shape.hidden = 256;
  shape.sequence = 128;
  shape.achieved_tflops = 0.01;
  // One layer: 24 x 128 x 256^2 + 4 x 128^2 x 256 = 218103808 FLOPs at 10 GFLOP/s.
  const double f_ms = 218103808.0 / 0.01e12 * 1e3;
  const double expected_ms = (8 + 4 - 1) * 3.0 * f_ms;
  const StepResult result = Bed(4).step(make_megatron_step(shape));
  EXPECT_NEAR(ms(result.step_time), expected_ms, 0.01 * expected_ms);
}

TEST(MegatronStep, OneMicroBatchWaitsForEverySendOnTheWay) {
  // pp 2, one micro-batch: forward on stage 0, its send, forward and backward on stage 1, the
  // gradient's send back, backward on stage 0: 2 (f + b) plus the two sends, each the size at
  // its route's slowest link plus the route's latency.
  MegatronShape shape = small_shape(2, 1, 1, 2, 1);
  shape.hidden = 4096;
  shape.sequence = 8192;  // 64 MiB of activations
  Bed bed(2);
  const int nic = bed.system->nearest_compute_nic(0, 0);
  const double bytes = 8192.0 * 4096.0 * 2.0;
  double sends_ms = 0.0;
  for (const auto& route :
       {bed.system->route({0, nic, 0}, {1, nic, 0}), bed.system->route({1, nic, 0}, {0, nic, 0})}) {
    sends_ms += bytes / bed.slowest(route) * 1e3 + ms(bed.latency(route));
  }
  // Two layers per stage: 2 (24 b s h^2 + 4 b s^2 h) FLOPs at 100 TFLOP/s.
  const double f_ms =
      2.0 * (24.0 * 8192.0 * 4096.0 * 4096.0 + 4.0 * 8192.0 * 8192.0 * 4096.0) / 100e12 * 1e3;
  const double expected_ms = 2.0 * 3.0 * f_ms + sends_ms;
  EXPECT_NEAR(ms(bed.step(make_megatron_step(shape)).step_time), expected_ms, 0.001 * expected_ms);
}

TEST(MegatronStep, TensorParallelCallsBlockEachPass) {
  // tp 8 on one node, 2 micro-batches: each pass is its compute, then 2 x 4 AllReduces of
  // b s h x 2 bytes, back to back; nothing overlaps.
  const MegatronShape shape = small_shape(1, 8, 8, 1, 2);
  CollectiveRequest call;
  call.op = CollectiveOp::kAllReduce;
  call.size = sim::Bytes{std::int64_t{1024} * 1024 * 2};
  call.comm = communicator_on({0}, iota(8));
  const sim::Duration allreduce = Bed(1).collective(call);
  const double f_ms = 4.0 * 28.0 * 1073741824.0 / 8.0 / 100e12 * 1e3;
  const double expected_ms = 2.0 * (3.0 * f_ms + 2.0 * 8.0 * ms(allreduce));
  EXPECT_NEAR(ms(Bed(1).step(make_megatron_step(shape)).step_time), expected_ms, 1e-6);
}

}  // namespace
}  // namespace railsim::models
