// File: tests/models/collective/recurrence_memo_test.cpp
// The memo evaluates each distinct input once, and ring calls that go through it answer to the
// bit what they answer without it, whichever of their inputs changes from one call to the next.
#include "models/collective/recurrence_memo.hpp"

#include "tests/models/collective/collective_testbed.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace railsim::models {
namespace {

using testing::CollectiveBed;

TEST(RecurrenceMemo, EvaluatesEachDistinctInputOnce) {
  RecurrenceMemo memo;
  int evaluations = 0;
  const auto answer = [&](std::vector<std::uint64_t> inputs, double value) {
    return memo.answer(inputs, [&] {
      ++evaluations;
      return value;
    });
  };
  EXPECT_EQ(answer({1, 2, 3}, 5.0), 5.0);
  EXPECT_EQ(answer({1, 2, 3}, 7.0), 5.0);  // kept: not evaluated again
  EXPECT_EQ(evaluations, 1);
  EXPECT_EQ(answer({1, 2, 4}, 7.0), 7.0);  // one word apart
  EXPECT_EQ(answer({1, 2}, 9.0), 9.0);     // a prefix
  EXPECT_EQ(answer({2, 1, 3}, 11.0), 11.0);
  EXPECT_EQ(evaluations, 4);
  EXPECT_EQ(memo.size(), 4U);
}

struct RingCase {
  CollectiveOp op;
  sim::Bytes size;
  Protocol protocol;
  int channels;
  bool half_port;  // node 1's first NIC port at half its rate
};

CollectiveResult run(const RingCase& c, RecurrenceMemo* memo) {
  CollectiveBed bed(2, 8);
  if (c.half_port) {
    const int nic = bed.system->nearest_compute_nic(1, 0);
    for (const sim::LinkId link : bed.system->route({1, nic, 0}, {0, nic, 0})) {
      if (bed.system->is_node_port_link(link)) {
        bed.network.set_link_capacity(
            link, sim::Bandwidth{bed.network.link(link).capacity.bytes_per_s / 2.0});
      }
    }
  }
  CollectiveRequest request;
  request.op = c.op;
  request.size = c.size;
  request.comm = bed.comm;
  request.algorithm = Algorithm::kRing;
  request.protocol = c.protocol;
  request.channels = c.channels;
  request.execution = Execution::kPipelined;
  request.recurrence_memo = memo;
  return run_collective(*bed.system, bed.network, bed.simulator, request);
}

TEST(RecurrenceMemo, RingCallsAnswerAsWithoutIt) {
  // One memo through calls that each change one input of the one before: a key that left one
  // out would hand a call its neighbour's answer.
  const std::vector<RingCase> cases = {
      {CollectiveOp::kAllReduce, sim::mib(256), Protocol::kSimple, 8, false},
      {CollectiveOp::kAllReduce, sim::mib(256), Protocol::kSimple, 8, false},  // again
      {CollectiveOp::kAllReduce, sim::mib(512), Protocol::kSimple, 8, false},
      {CollectiveOp::kAllReduce, sim::mib(512), Protocol::kLl128, 8, false},
      {CollectiveOp::kAllReduce, sim::mib(512), Protocol::kLl128, 16, false},
      {CollectiveOp::kAllGather, sim::mib(512), Protocol::kLl128, 16, false},
      {CollectiveOp::kAllGather, sim::mib(512), Protocol::kLl128, 16, true},
      {CollectiveOp::kAllGather, sim::mib(512), Protocol::kSimple, 16, true},
  };
  RecurrenceMemo memo;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CollectiveResult with = run(cases[i], &memo);
    const CollectiveResult without = run(cases[i], nullptr);
    EXPECT_EQ(with.time, without.time) << "case " << i;
    if (i == 1) {
      EXPECT_EQ(memo.size(), kept) << "the same call again times nothing anew";
    } else {
      EXPECT_GT(memo.size(), kept) << "case " << i << " is timed and kept";
    }
    kept = memo.size();
  }
}

}  // namespace
}  // namespace railsim::models
