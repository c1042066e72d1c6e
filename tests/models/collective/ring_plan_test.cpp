// File: tests/models/collective/ring_plan_test.cpp
// Ring plans as data, without the engine: what each connection carries, how the buffer is cut,
// and which transfer waits for which.
#include "models/collective/ring_plan.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <vector>

namespace railsim::models {
namespace {

std::vector<int> identity_ring(int n) {
  std::vector<int> ring(static_cast<std::size_t>(n));
  std::iota(ring.begin(), ring.end(), 0);
  return ring;
}

// Bytes per (channel, connection), summed over the listed transfers.
std::map<std::pair<int, int>, std::int64_t> carried(const std::vector<Transfer>& transfers) {
  std::map<std::pair<int, int>, std::int64_t> sum;
  for (const Transfer& t : transfers) {
    sum[{t.channel, t.connection}] += t.bytes.count;
  }
  return sum;
}

TEST(RingPlan, AllReduceConnectionsCarryTwoNMinusOneOverNOfTheirChannel) {
  // 4 ranks, 2 channels, 64 MiB: each channel 32 MiB; each connection 2 x 3/4 x 32 = 48 MiB.
  const RingPlan plan = make_ring_plan(CollectiveOp::kAllReduce, Protocol::kSimple, sim::mib(64),
                                       {identity_ring(4), {3, 2, 1, 0}});
  const auto sum = carried(transfers(plan));
  ASSERT_EQ(sum.size(), 8U);
  for (const auto& [key, bytes] : sum) {
    EXPECT_EQ(bytes, 48 * 1024 * 1024) << "channel " << key.first << " connection " << key.second;
  }
  for (int c = 0; c < 2; ++c) {
    const RingPipeline pipe = pipeline(plan, c);
    for (const sim::Bytes b : pipe.connection_bytes) {
      EXPECT_EQ(b.count, 48 * 1024 * 1024);
    }
  }
}

TEST(RingPlan, AllGatherAndReduceScatterCarryNMinusOneOverN) {
  // 8 ranks, 1 channel, 8 MiB in all: each connection moves 7 of the 8 pieces, 7 MiB.
  for (const CollectiveOp op : {CollectiveOp::kAllGather, CollectiveOp::kReduceScatter}) {
    const RingPlan plan = make_ring_plan(op, Protocol::kSimple, sim::mib(8), {identity_ring(8)});
    EXPECT_EQ(plan.steps(), 7);
    for (const auto& [key, bytes] : carried(transfers(plan))) {
      EXPECT_EQ(bytes, 7 * 1024 * 1024);
    }
    EXPECT_EQ(pipeline(plan, 0).connection_bytes[3].count, 7 * 1024 * 1024);
  }
}

TEST(RingPlan, BroadcastChainsTheWholeBufferDownNMinusOneHops) {
  const RingPlan plan =
      make_ring_plan(CollectiveOp::kBroadcast, Protocol::kSimple, sim::mib(3), {identity_ring(5)});
  EXPECT_EQ(plan.connections(), 4);
  const auto sum = carried(transfers(plan));
  ASSERT_EQ(sum.size(), 4U);
  for (const auto& [key, bytes] : sum) {
    EXPECT_EQ(bytes, 3 * 1024 * 1024);
  }
  // Broadcast moves 512 KiB chunks in one slice each: 6 loops down 4 hops.
  EXPECT_EQ(plan.loops(0), 6);
  EXPECT_EQ(plan.transfer_count(), 24);
  EXPECT_EQ(transfers(plan).size(), 24U);
}

TEST(RingPlan, SimpleCutsLoopsOfNChunksOfTwoMiBIntoTwoSlices) {
  // 4 ranks, 1 channel, 64 MiB AllReduce: a loop is 4 x 2 MiB, so 8 loops; each has 6 steps of
  // 4 connections x 2 slices of 1 MiB: 8 x 6 x 4 x 2 = 384 transfers.
  const RingPlan plan =
      make_ring_plan(CollectiveOp::kAllReduce, Protocol::kSimple, sim::mib(64), {identity_ring(4)});
  EXPECT_EQ(plan.loops(0), 8);
  const std::vector<Transfer> all = transfers(plan);
  ASSERT_EQ(all.size(), 384U);
  EXPECT_EQ(plan.transfer_count(), 384);
  for (const Transfer& t : all) {
    EXPECT_EQ(t.bytes, sim::mib(1));
  }
  const RingPipeline pipe = pipeline(plan, 0);
  EXPECT_EQ(pipe.loops, 8);
  EXPECT_EQ(pipe.slices, 2);
  EXPECT_EQ(pipe.last_loop_slice, sim::mib(1));
}

TEST(RingPlan, SmallBufferLeavesSomePiecesEmptyButRunsEveryStep) {
  // 8 B over 4 ranks: pieces of 2 B each; with LL (one slice) 6 steps x 4 transfers of 2 B.
  const RingPlan plan =
      make_ring_plan(CollectiveOp::kAllReduce, Protocol::kLl, sim::bytes(8), {identity_ring(4)});
  const std::vector<Transfer> all = transfers(plan);
  ASSERT_EQ(all.size(), 24U);
  for (const Transfer& t : all) {
    EXPECT_EQ(t.bytes.count, 2);
  }
  // 6 B over 4 ranks: pieces 2, 2, 2, 0: the empty piece still takes its steps.
  const RingPlan uneven =
      make_ring_plan(CollectiveOp::kAllReduce, Protocol::kLl, sim::bytes(6), {identity_ring(4)});
  std::int64_t moved = 0;
  for (const Transfer& t : transfers(uneven)) {
    moved += t.bytes.count;
  }
  EXPECT_EQ(transfers(uneven).size(), 24U);
  // Each of the 6 steps moves all four pieces once (one per connection): 6 x 6 B.
  EXPECT_EQ(moved, 36);
}

TEST(RingPlan, EachTransferForwardsWhatThePreviousRankSentAStepEarlier) {
  const RingPlan plan =
      make_ring_plan(CollectiveOp::kAllReduce, Protocol::kSimple, sim::mib(16), {{2, 0, 3, 1}});
  const std::vector<Transfer> all = transfers(plan);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Transfer& t = all[i];
    EXPECT_EQ(t.dst, plan.rings[0][static_cast<std::size_t>((t.connection + 1) % 4)]);
    if (t.step == 0) {
      EXPECT_FALSE(t.depends_on.has_value());
      continue;
    }
    ASSERT_TRUE(t.depends_on.has_value());
    const Transfer& before = all[*t.depends_on];
    EXPECT_EQ(before.dst, t.src);
    EXPECT_EQ(before.step, t.step - 1);
    EXPECT_EQ(before.bytes, t.bytes);
    EXPECT_LT(*t.depends_on, i);
  }
}

TEST(RingPlan, AConnectionSendsInLoopStepSliceOrder) {
  const RingPlan plan =
      make_ring_plan(CollectiveOp::kAllReduce, Protocol::kSimple, sim::mib(32), {identity_ring(2)});
  // 2 ranks: loops of 2 x 2 MiB, so 8 loops of 2 steps x 2 slices per connection.
  const std::vector<Transfer> all = transfers(plan);
  std::map<int, std::vector<std::size_t>> order;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].after) {
      EXPECT_EQ(all[*all[i].after].connection, all[i].connection);
      EXPECT_EQ(order[all[i].connection].back(), *all[i].after);
    } else {
      EXPECT_TRUE(order[all[i].connection].empty());
    }
    order[all[i].connection].push_back(i);
  }
  EXPECT_EQ(order[0].size(), 32U);
  EXPECT_EQ(order[1].size(), 32U);
}

TEST(RingPlan, OneRankMovesNothing) {
  const RingPlan plan =
      make_ring_plan(CollectiveOp::kAllReduce, Protocol::kSimple, sim::mib(1), {{0}});
  EXPECT_EQ(plan.connections(), 0);
  EXPECT_TRUE(transfers(plan).empty());
  EXPECT_EQ(plan.transfer_count(), 0);
}

TEST(RingPlan, RejectsRingsThatAreNotPermutations) {
  EXPECT_THROW(make_ring_plan(CollectiveOp::kAllReduce, Protocol::kSimple, sim::mib(1), {}),
               sim::InputError);
  EXPECT_THROW(
      make_ring_plan(CollectiveOp::kAllReduce, Protocol::kSimple, sim::mib(1), {{0, 1, 1}}),
      sim::InputError);
  EXPECT_THROW(
      make_ring_plan(CollectiveOp::kAllReduce, Protocol::kSimple, sim::mib(1), {{0, 1, 2}, {0, 1}}),
      sim::InputError);
  EXPECT_THROW(
      make_ring_plan(CollectiveOp::kAllReduce, Protocol::kSimple, sim::bytes(-1), {{0, 1}}),
      sim::InputError);
}

}  // namespace
}  // namespace railsim::models
