// File: tests/models/workload/moe_step_test.cpp
// Mixture-of-experts steps: the router's load against Zipf's closed form, the moe generator's
// phases, bytes and FLOPs against the shape by hand, and its step against the sum of its calls.
#include "tests/models/workload/step_bed.hpp"

#include "models/workload/expert_load.hpp"
#include "models/workload/megatron_generator.hpp"
#include "models/workload/step_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace railsim::models {
namespace {

std::vector<double> sorted_down(std::vector<double> v) {
  std::sort(v.begin(), v.end(), std::greater<>());
  return v;
}

TEST(ExpertLoad, ABalancedRouterSpreadsTokensEvenly) {
  for (const double share : expert_load(8, 2, 0.0, 7, 3)) {
    EXPECT_DOUBLE_EQ(share, 1.0 / 8.0);
  }
}

TEST(ExpertLoad, SharesFollowZipfInTheSeedsOrder) {
  // skew 1 over 4 experts: 1, 1/2, 1/3, 1/4 over their sum 25/12.
  const std::vector<double> load = expert_load(4, 1, 1.0, 11, 0);
  const std::vector<double> expected = {12.0 / 25.0, 6.0 / 25.0, 4.0 / 25.0, 3.0 / 25.0};
  const std::vector<double> got = sorted_down(load);
  for (std::size_t q = 0; q < 4; ++q) {
    EXPECT_NEAR(got[q], expected[q], 1e-12);
  }
  // Deterministic by seed and layer; another layer or seed draws another order.
  EXPECT_EQ(expert_load(4, 1, 1.0, 11, 0), load);
  bool differs = false;
  for (int layer = 1; layer < 8; ++layer) {
    differs = differs || expert_load(4, 1, 1.0, 11, layer) != load;
  }
  EXPECT_TRUE(differs);
}

TEST(ExpertLoad, NoExpertTakesATokenTwice) {
  // skew 3, top-2: the first expert's 1 / (1 + 1/8 + 1/27 + 1/64) = 0.849 is capped at 1/2; the
  // other half goes to the rest in proportion to 1/8, 1/27, 1/64.
  const std::vector<double> got = sorted_down(expert_load(4, 2, 3.0, 5, 2));
  const double rest = 1.0 / 8.0 + 1.0 / 27.0 + 1.0 / 64.0;
  EXPECT_NEAR(got[0], 0.5, 1e-12);
  EXPECT_NEAR(got[1], 0.5 / 8.0 / rest, 1e-12);
  EXPECT_NEAR(got[2], 0.5 / 27.0 / rest, 1e-12);
  EXPECT_NEAR(got[3], 0.5 / 64.0 / rest, 1e-12);
  // top-k = E: every expert takes every token.
  for (const double share : expert_load(4, 4, 2.0, 5, 2)) {
    EXPECT_NEAR(share, 0.25, 1e-12);
  }
}

// 2 layers (the first dense) of hidden 1024 over sequences of 1024, 32 experts of width 512,
// top-2, on `nodes` DGX H100 nodes at 100 TFLOP/s.
MegatronShape moe_shape(int nodes, int ep, double skew) {
  MegatronShape shape;
  shape.nodes = iota(nodes);
  shape.gpus_per_node = 8;
  shape.layers = 2;
  shape.hidden = 1024;
  shape.sequence = 1024;
  shape.achieved_tflops = 100.0;
  MoeShape moe;
  moe.experts = 32;
  moe.top_k = 2;
  moe.ep = ep;
  moe.expert_hidden = 512;
  moe.dense_layers = 1;
  moe.skew = skew;
  shape.moe = moe;
  return shape;
}

const Phase& phase_named(const StepWorkload& step, const std::string& name) {
  const auto it = std::find_if(step.phases.begin(), step.phases.end(),
                               [&](const Phase& p) { return p.name == name; });
  if (it == step.phases.end()) {
    throw std::runtime_error("no phase " + name);
  }
  return *it;
}

TEST(MoeStep, BytesAndFlopsFollowTheShape) {
  // 2 x 8 GPUs, ep 16: one expert-parallel group over both nodes, 2 experts a rank. A balanced
  // router sends each rank 1024 tokens x 2 x 1/16 = 128 token copies from every rank, 1024 x 2
  // bytes each.
  const StepWorkload step = make_megatron_step(moe_shape(2, 16, 0.0));
  validate(step);
  const auto& dispatch = std::get<CollectiveTask>(phase_named(step, "dispatch.0.0.1").task);
  EXPECT_EQ(dispatch.request.op, CollectiveOp::kAllToAll);
  ASSERT_NE(dispatch.request.peer_bytes, nullptr);
  ASSERT_EQ(dispatch.request.peer_bytes->size(), 256U);
  for (const sim::Bytes b : *dispatch.request.peer_bytes) {
    EXPECT_EQ(b.count, 128 * 1024 * 2);
  }
  EXPECT_EQ(dispatch.request.size.count, 16 * 128 * 1024 * 2);  // what one rank sends
  const StepCommunicator& ep =
      step.communicators.at(static_cast<std::size_t>(dispatch.communicator));
  EXPECT_EQ(ep.name, "ep.0");
  ASSERT_EQ(ep.groups.size(), 1U);
  EXPECT_EQ(ep.groups[0].ranks(), 16);
  // Each rank's experts take 16 x 128 token copies at 6 h f FLOPs each; backward twice that.
  const double experts_s = 16.0 * 128.0 * 6.0 * 1024.0 * 512.0 / 100e12;
  const auto& fwd = std::get<ComputeTask>(phase_named(step, "fwd_experts.0.0.1").task);
  ASSERT_EQ(fwd.per_rank.size(), 16U);
  EXPECT_NEAR(sim::to_seconds(fwd.per_rank[5]), experts_s, 1e-12);
  const auto& bwd = std::get<ComputeTask>(phase_named(step, "bwd_experts.0.0.1").task);
  EXPECT_NEAR(sim::to_seconds(bwd.per_rank[5]), 2.0 * experts_s, 1e-12);
  // Attention and router: 8 b s h^2 + 4 b s^2 h + 2 b s h E.
  const double attention_s = (8.0 + 4.0 + 2.0 * 32.0 / 1024.0) * 1024.0 * 1024.0 * 1024.0 / 100e12;
  EXPECT_NEAR(
      sim::to_seconds(std::get<ComputeTask>(phase_named(step, "fwd_attn.0.0.1").task).duration),
      attention_s, 1e-12);
  // The dense layer: 24 b s h^2 + 4 b s^2 h.
  EXPECT_NEAR(sim::to_seconds(std::get<ComputeTask>(phase_named(step, "fwd.0.0").task).duration),
              28.0 * 1073741824.0 / 100e12, 1e-12);
  // Dense gradients, 12 h^2 + 4 h^2 + h E parameters in bf16, over dp 16; the experts are not
  // replicated (ep = the stage's ranks), so they have no AllReduce.
  const auto& dp = std::get<CollectiveTask>(phase_named(step, "dp_allreduce.0").task);
  EXPECT_EQ(dp.request.size.count, (16LL * 1024 * 1024 + 1024LL * 32) * 2);
  EXPECT_THROW(phase_named(step, "edp_allreduce.0"), std::runtime_error);
}

TEST(MoeStep, ExpertReplicasReduceTheirGradients) {
  // 2 x 8, ep 8: one group per node; each rank's 4 experts have a replica on the other node.
  const StepWorkload step = make_megatron_step(moe_shape(2, 8, 0.0));
  validate(step);
  const auto& edp = std::get<CollectiveTask>(phase_named(step, "edp_allreduce.0").task);
  EXPECT_EQ(edp.request.size.count, 4LL * 3 * 1024 * 512 * 2);
  const StepCommunicator& groups =
      step.communicators.at(static_cast<std::size_t>(edp.communicator));
  ASSERT_EQ(groups.groups.size(), 8U);
  EXPECT_EQ(groups.groups[3].node_ids, (std::vector<int>{0, 1}));
  EXPECT_EQ(groups.groups[3].gpu_ids, (std::vector<int>{3}));
}

TEST(MoeStep, ASkewedRouterLoadsSomeRanksMoreButMovesTheSameTokens) {
  const StepWorkload even = make_megatron_step(moe_shape(2, 16, 0.0));
  const StepWorkload skewed = make_megatron_step(moe_shape(2, 16, 1.0));
  const auto& a =
      *std::get<CollectiveTask>(phase_named(even, "dispatch.0.0.1").task).request.peer_bytes;
  const auto& b =
      *std::get<CollectiveTask>(phase_named(skewed, "dispatch.0.0.1").task).request.peer_bytes;
  const auto total = [](const PeerBytes& m) {
    double sum = 0.0;
    for (const sim::Bytes x : m) {
      sum += static_cast<double>(x.count);
    }
    return sum;
  };
  EXPECT_NEAR(total(b), total(a), 1e-6 * total(a));  // rounding to whole bytes only
  EXPECT_GT(std::max_element(b.begin(), b.end())->count, a.front().count * 2);
  const auto& times = std::get<ComputeTask>(phase_named(skewed, "fwd_experts.0.0.1").task).per_rank;
  const sim::Duration even_time =
      std::get<ComputeTask>(phase_named(even, "fwd_experts.0.0.1").task).per_rank.front();
  EXPECT_GT(*std::max_element(times.begin(), times.end()), even_time * 2);
  EXPECT_LT(*std::min_element(times.begin(), times.end()), even_time);
}

TEST(MoeStep, OnePassIsItsCallsAndComputeInTurn) {
  // One node, ep 8, one MoE layer, one micro-batch, no dp across nodes: the step is attention,
  // dispatch, experts, combine forward; the mirror backward at twice the compute; then the dense
  // gradients' AllReduce over the 8 ranks. Each call timed alone on the same system.
  MegatronShape shape = moe_shape(1, 8, 0.0);
  shape.layers = 1;
  shape.moe->dense_layers = 0;
  const StepWorkload step = make_megatron_step(shape);
  Bed calls(1);
  const auto call_ms = [&](const std::string& name) {
    CollectiveRequest request = std::get<CollectiveTask>(phase_named(step, name).task).request;
    request.comm = communicator_on({0}, iota(8));
    return ms(calls.collective(request));
  };
  const auto compute_ms = [&](const std::string& name) {
    const auto& task = std::get<ComputeTask>(phase_named(step, name).task);
    return ms(task.per_rank.empty() ? task.duration : task.per_rank.front());
  };
  const double expected_ms =
      compute_ms("fwd_attn.0.0.0") + call_ms("dispatch.0.0.0") + compute_ms("fwd_experts.0.0.0") +
      call_ms("combine.0.0.0") + call_ms("bwd_combine.0.0.0") + compute_ms("bwd_experts.0.0.0") +
      call_ms("bwd_dispatch.0.0.0") + compute_ms("bwd_attn.0.0.0") + call_ms("dp_allreduce.0");
  EXPECT_NEAR(ms(Bed(1).step(step).step_time), expected_ms, 1e-6);
}

TEST(MoeStep, ShapesThatDoNotFitNameTheirField) {
  const auto field_of = [](const MegatronShape& shape) {
    try {
      make_megatron_step(shape);
    } catch (const ShapeError& e) {
      return e.field();
    }
    return std::string("none");
  };
  MegatronShape ep = moe_shape(2, 12, 0.0);  // 12 does not divide 16 ranks
  EXPECT_EQ(field_of(ep), "moe/ep");
  MegatronShape top_k = moe_shape(2, 8, 0.0);
  top_k.moe->top_k = 33;
  EXPECT_EQ(field_of(top_k), "moe/top_k");
  MegatronShape skew = moe_shape(2, 8, -0.5);
  EXPECT_EQ(field_of(skew), "moe/skew");
  MegatronShape dense = moe_shape(2, 8, 0.0);
  dense.moe->dense_layers = 3;
  EXPECT_EQ(field_of(dense), "moe/dense_layers");
  MegatronShape parameters = moe_shape(2, 8, 0.0);
  parameters.parameters = 1e9;
  EXPECT_EQ(field_of(parameters), "parameters");
}

}  // namespace
}  // namespace railsim::models
