// File: tests/models/collective/pipeline_time_test.cpp
// The ring pipeline's recurrence against timelines worked by hand and against the same recurrence
// taken over the plan's transfer list (the chunk-accurate run's dependencies), and its closed
// form against the recurrence where the closed form is exact (one pace and one delay everywhere).
#include "models/collective/pipeline_time.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace railsim::models {
namespace {

constexpr double kUs = 1e-6;

TEST(PipelineTime, BroadcastChainWorkedByHand) {
  // 3 ranks, one channel, 1 MiB: two loops of one 512 KiB slice down connections 0 and 1.
  // Connection 0 takes 2 us a slice and hands on 0.5 us later; connection 1 takes 1 us, 0.25 us.
  //   c0: slice 0 [0, 2], slice 1 [2, 4]
  //   c1: slice 0 [2.5, 3.5], slice 1 [max(3.5, 4 + 0.5) = 4.5, 5.5], held at 5.75 us.
  const RingPlan plan =
      make_ring_plan(CollectiveOp::kBroadcast, Protocol::kSimple, sim::mib(1), {{0, 1, 2}});
  const double slice = 512.0 * 1024.0;
  const std::vector<ConnectionPace> pace = {{2 * kUs / slice, 0.5 * kUs},
                                            {1 * kUs / slice, 0.25 * kUs}};
  EXPECT_NEAR(pipeline_seconds(plan, 0, pace, false), 5.75 * kUs, 1e-12);
  // The closed form lets each hop pay its full slice time and delay: 4 us of drain at the
  // slowest pace, 2.5 us down the first hop, 0.25 us for the last: 6.75 us, an upper bound.
  EXPECT_NEAR(pipeline_seconds_closed_form(plan, 0, pace, false), 6.75 * kUs, 1e-12);
}

TEST(PipelineTime, StreamedBroadcastChainWorkedByHand) {
  // As above with LL128 (two loops of one 576,000-byte slice), which streams: connection 1
  // starts a slice 0.5 us after connection 0 started it and holds it no sooner than 0.25 us after
  // connection 0's hold.
  //   c0: slice 0 [0, 2] held 2.5, slice 1 [2, 4] held 4.5
  //   c1: slice 0 [0.5, 1.5] held max(1.5, 2.5) + 0.25 = 2.75; slice 1 [max(1.5, 2.5), 3.5]
  //       held max(3.5, 4.5) + 0.25 = 4.75 us, where store-and-forward took 5.75 us.
  const RingPlan plan = make_ring_plan(CollectiveOp::kBroadcast, Protocol::kLl128,
                                       sim::bytes(1'152'000), {{0, 1, 2}});
  const double slice = 576'000.0;
  const std::vector<ConnectionPace> pace = {{2 * kUs / slice, 0.5 * kUs},
                                            {1 * kUs / slice, 0.25 * kUs}};
  EXPECT_NEAR(pipeline_seconds(plan, 0, pace, true), 4.75 * kUs, 1e-12);
  // Streamed, the closed form's first hop costs its delay only: 4 us of drain, 0.5 us, 0.25 us.
  EXPECT_NEAR(pipeline_seconds_closed_form(plan, 0, pace, true), 4.75 * kUs, 1e-12);
}

TEST(PipelineTime, AllReduceStallsWorkedByHand) {
  // 2 ranks, one channel, 8 KiB with Simple: one loop, pieces of 4 KiB in 2 slices of 2 KiB,
  // 2 steps. Both connections take 1 us a slice; delays 3 us (c0) and 0 (c1).
  //   step 0: c0 slices [0, 1], [1, 2]; c1 slices [0, 1], [1, 2]
  //   step 1: c0 forwards what c1 sent: slice 0 at max(2, 1 + 0) = 2 -> [2, 3], slice 1 [3, 4]
  //           c1 forwards what c0 sent: slice 0 at max(2, 1 + 3) = 4 -> [4, 5], slice 1 at
  //           max(5, 2 + 3) = 5 -> [5, 6], held at 6 us; c0's last is held at 4 + 3 = 7 us.
  const RingPlan plan =
      make_ring_plan(CollectiveOp::kAllReduce, Protocol::kSimple, sim::kib(8), {{0, 1}});
  const double slice = 2048.0;
  const std::vector<ConnectionPace> pace = {{1 * kUs / slice, 3 * kUs}, {1 * kUs / slice, 0.0}};
  EXPECT_NEAR(pipeline_seconds(plan, 0, pace, false), 7.0 * kUs, 1e-12);
}

TEST(PipelineTime, ClosedFormIsExactWithOnePaceAndOneDelay) {
  // 8 ranks, AllReduce of 64 MiB on one channel with Simple: 4 loops of 2 MiB pieces in 1 MiB
  // slices. Delays below and above a step's worth of slices (2 x 1 MiB at 10 GB/s = 210 us).
  const RingPlan plan = make_ring_plan(CollectiveOp::kAllReduce, Protocol::kSimple, sim::mib(64),
                                       {{0, 1, 2, 3, 4, 5, 6, 7}});
  for (const double delay_us : {0.0, 5.0, 150.0, 400.0}) {
    const std::vector<ConnectionPace> pace(8, {1.0 / 10e9, delay_us * kUs});
    const double recurrence = pipeline_seconds(plan, 0, pace, false);
    EXPECT_NEAR(pipeline_seconds_closed_form(plan, 0, pace, false), recurrence, 1e-9 * recurrence)
        << delay_us << " us";
  }
}

// The header's recurrence over transfers(plan), channel 0: each transfer starts once its
// connection's previous one has left (and posted, after a step's last slice) and once the
// transfer that brought its data is held (streamed: opened); the last hold is the channel's end.
double transfer_by_transfer(const RingPlan& plan,
                            const std::vector<ConnectionPace>& pace,
                            bool streams) {
  const std::vector<Transfer> all = transfers(plan);
  std::vector<double> start(all.size(), 0.0);
  std::vector<double> free(all.size(), 0.0);  // its connection may send again
  std::vector<double> held(all.size(), 0.0);
  double done = 0.0;
  for (std::size_t i = 0; i < all.size() && all[i].channel == 0; ++i) {
    const Transfer& x = all[i];
    const ConnectionPace& c = pace[static_cast<std::size_t>(x.connection)];
    double begin = x.after ? free[*x.after] : 0.0;
    double input_held = 0.0;
    if (x.depends_on) {
      const std::size_t d = *x.depends_on;
      const ConnectionPace& before = pace[static_cast<std::size_t>(all[d].connection)];
      begin = std::max(begin, streams ? start[d] + before.delay_s : held[d]);
      input_held = held[d];
    }
    start[i] = begin;
    const double end = begin + static_cast<double>(x.bytes.count) * c.seconds_per_byte;
    free[i] = x.slice == plan.chunking.slices - 1 ? end + c.post_s : end;
    held[i] = (streams ? std::max(end, input_held) : end) + c.delay_s;
    done = std::max(done, held[i]);
  }
  return done;
}

TEST(PipelineTime, RecurrenceFollowsThePlansTransfers) {
  // pipeline_seconds steps through for_each_slice's order with its own state; the transfer list
  // names each transfer's input and predecessor. Both must end at the same time: many loops with
  // a shorter last one (its pieces uneven), one slow hop with a long delay and posts,
  // store-and-forward and streamed, rings and a chain.
  struct Case {
    CollectiveOp op;
    Protocol protocol;
    std::int64_t bytes;
    int ranks;
  };

  for (const Case& k : {Case{CollectiveOp::kAllReduce, Protocol::kSimple, (48 << 20) + 12'345, 6},
                        Case{CollectiveOp::kAllReduce, Protocol::kLl128, (24 << 20) + 777, 5},
                        Case{CollectiveOp::kAllGather, Protocol::kSimple, 96 << 20, 8},
                        Case{CollectiveOp::kReduceScatter, Protocol::kLl, 6 << 20, 4},
                        Case{CollectiveOp::kBroadcast, Protocol::kSimple, (64 << 20) + 3, 4}}) {
    std::vector<int> ring(static_cast<std::size_t>(k.ranks));
    for (int r = 0; r < k.ranks; ++r) {
      ring[static_cast<std::size_t>(r)] = r;
    }
    const RingPlan plan = make_ring_plan(k.op, k.protocol, sim::bytes(k.bytes), {ring});
    std::vector<ConnectionPace> pace(static_cast<std::size_t>(plan.connections()),
                                     {1.0 / 300e9, 1 * kUs});
    pace[1] = {1.0 / 40e9, 12 * kUs, 3 * kUs};  // a hop between nodes: slow, far, posting
    pace.back().delay_s = 2.5 * kUs;
    for (const bool streams : {false, true}) {
      const double expected = transfer_by_transfer(plan, pace, streams);
      EXPECT_NEAR(pipeline_seconds(plan, 0, pace, streams), expected, 1e-12 * expected)
          << op_name(k.op) << " " << k.ranks << " ranks, streams " << streams;
    }
  }
}

TEST(PipelineTime, ClosedFormBoundsTheRecurrenceWhenHopsDiffer) {
  // Intra-node hops fast and close, the hop between two nodes slow and far: the closed form
  // charges every loop its worst run of hops, never less than the recurrence.
  const RingPlan plan = make_ring_plan(CollectiveOp::kAllReduce, Protocol::kSimple, sim::mib(48),
                                       {{0, 1, 2, 3, 4, 5}});
  std::vector<ConnectionPace> pace(6, {1.0 / 300e9, 1 * kUs});
  pace[2] = {1.0 / 40e9, 12 * kUs};
  pace[5] = {1.0 / 40e9, 12 * kUs};
  EXPECT_GE(pipeline_seconds_closed_form(plan, 0, pace, false),
            pipeline_seconds(plan, 0, pace, false));
}

}  // namespace
}  // namespace railsim::models
