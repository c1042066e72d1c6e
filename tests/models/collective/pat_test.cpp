// File: tests/models/collective/pat_test.cpp
// PAT AllGather and ReduceScatter with one GPU per node: its chunk rule, its plan against a
// brute-force derivation of the binomial trees and the bytes each NIC sends; its run against
// closed forms at 8 B and 4 GiB, the two executions against each other, the tuner's choice, and
// what NCCL would not run.
#include "collective_testbed.hpp"

#include "models/collective/non_ring_chunking.hpp"
#include "models/collective/pat_plan.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <utility>

namespace railsim::models {
namespace {

using testing::CollectiveBed;
using testing::kGen5GBps;
using testing::seconds;

TEST(PatChunk, FollowsNcclsRule) {
  // 512 KiB (one Simple step), halved down to 64 KiB while channels x chunk x 32 (AllGather) or
  // x 16 (ReduceScatter) exceeds the bytes: on 16 channels, 256 MiB / 128 MiB keep 512 KiB.
  EXPECT_EQ(pat_chunk(CollectiveOp::kAllGather, sim::mib(256), 16), sim::kib(512));
  EXPECT_EQ(pat_chunk(CollectiveOp::kAllGather, sim::mib(128), 16), sim::kib(256));
  EXPECT_EQ(pat_chunk(CollectiveOp::kReduceScatter, sim::mib(128), 16), sim::kib(512));
  EXPECT_EQ(pat_chunk(CollectiveOp::kReduceScatter, sim::mib(64), 16), sim::kib(256));
  EXPECT_EQ(pat_chunk(CollectiveOp::kAllGather, sim::bytes(8), 16), sim::kib(64));
}

// Every (source, target) pair of an AllGather, derived without the plan: the portion of s
// reaches s + delta at the dimension of delta's lowest set bit, from s + delta - 2^d, which got
// it at the dimension of (delta - 2^d)'s lowest set bit, unless it is s itself. ReduceScatter's
// contributions take the same trees backwards.
struct Delivery {
  int sender;
  int dimension;
  std::optional<int> received_at;  // the sender's own receive of it, by dimension
};

Delivery delivery(int n, int source, int target) {
  const int delta = ((target - source) % n + n) % n;
  const int d = std::countr_zero(static_cast<unsigned>(delta));
  const int rest = delta - (1 << d);
  Delivery out{(source + rest) % n, d, std::nullopt};
  if (rest != 0) {
    out.received_at = std::countr_zero(static_cast<unsigned>(rest));
  }
  return out;
}

TEST(PatPlan, MatchesTheBinomialTreesOfEverySource) {
  for (const int n : {2, 3, 5, 8, 10, 16, 33, 100}) {
    for (const CollectiveOp op : {CollectiveOp::kAllGather, CollectiveOp::kReduceScatter}) {
      const PatPlan plan = make_pat_plan(op, sim::mib(1), Communicator{n, 1}, 1);
      const bool gather = op == CollectiveOp::kAllGather;
      EXPECT_EQ(plan.steps(), std::bit_width(static_cast<unsigned>(n - 1))) << n;
      std::map<int, int> step_of;  // by dimension
      for (int s = 0; s < plan.steps(); ++s) {
        step_of[plan.dimension(s)] = s;
      }
      // (rank, step) -> portions it sends there.
      std::map<std::pair<int, int>, int> sent;
      for (int source = 0; source < n; ++source) {
        for (int target = 0; target < n; ++target) {
          if (target == source) {
            continue;
          }
          // ReduceScatter: target's result gathers source's contribution, backwards.
          const Delivery d = delivery(n, gather ? source : target, gather ? target : source);
          const int step = step_of.at(d.dimension);
          const int from = gather ? d.sender : source;
          const int to = gather ? target : d.sender;
          EXPECT_EQ(plan.peer(from, step), to) << n;
          EXPECT_EQ(plan.sender_to(to, step), from) << n;
          ++sent[{from, step}];
          if (d.received_at) {
            // The tree's hop into the sender: AllGather takes it before this one (the sender
            // passes on what it received), ReduceScatter after (the sender adds this in).
            const int other = step_of.at(*d.received_at);
            const int first = gather ? other : step;
            const int second = gather ? step : other;
            EXPECT_LT(first, second) << n;
            EXPECT_TRUE(plan.feeds(first, second)) << n << " " << first << " " << second;
          }
        }
      }
      // Every rank sends plan.portions(step) at each step: n - 1 in all, a ring's bytes.
      int total = 0;
      for (int s = 0; s < plan.steps(); ++s) {
        total += plan.portions(s);
        for (int r = 0; r < n; ++r) {
          EXPECT_EQ((sent[{r, s}]), plan.portions(s)) << n << " rank " << r << " step " << s;
        }
      }
      EXPECT_EQ(total, n - 1) << n;
    }
  }
}

TEST(PatPlan, NearestStepCarriesHalfAndTransfersAreCounted) {
  // 16 ranks, AllGather: dimensions 3, 2, 1, 0 carry 1, 2, 4 and 8 portions; a rank's NIC sends
  // 15/16 of the output, as a ring's.
  const PatPlan plan =
      make_pat_plan(CollectiveOp::kAllGather, sim::mib(64), Communicator{16, 1}, 4);
  EXPECT_EQ(plan.portions(0), 1);
  EXPECT_EQ(plan.portions(3), 8);
  EXPECT_EQ(plan.peer(5, 0), 13);
  EXPECT_EQ(plan.peer(5, 3), 6);
  std::map<int, std::int64_t> nic_bytes;
  const std::vector<PatTransfer> transfers = pat_transfers(plan);
  EXPECT_EQ(static_cast<std::int64_t>(transfers.size()), plan.transfer_count());
  for (const PatTransfer& t : transfers) {
    nic_bytes[t.rank] += t.bytes.count;
  }
  for (const auto& [rank, bytes] : nic_bytes) {
    EXPECT_EQ(bytes, sim::mib(64).count / 16 * 15) << rank;
  }
}

TEST(PatPlan, RefusesWhatPatDoesNotRun) {
  EXPECT_THROW(make_pat_plan(CollectiveOp::kAllReduce, sim::mib(1), Communicator{4, 1}, 1),
               sim::InputError);
  EXPECT_THROW(make_pat_plan(CollectiveOp::kAllGather, sim::mib(1), Communicator{1, 1}, 1),
               sim::InputError);
  EXPECT_THROW(make_pat_plan(CollectiveOp::kAllGather, sim::mib(1), Communicator{4, 1}, 0),
               sim::InputError);
  EXPECT_THROW(make_pat_plan(CollectiveOp::kAllGather, sim::bytes(-1), Communicator{4, 1}, 1),
               sim::InputError);
}

TEST(PatRun, SmallCallsTakeNcclsPatLatency) {
  // 8 B on 16 nodes x 1 GPU: four dimensions, each step waiting for every earlier one (2^a + 2^b
  // < 16), each costing NCCL's PAT hop 14 / 3.5 = 4 us and the receiver's 2.8 us per portion of
  // the 1 + 2 + 4 + 8 it carries (nccl:src/graph/tuning.cc): base 8 + 4 x 4 + 15 x 2.8 = 66 us,
  // plus each network path's own latency, at most 1.3 us (tree_run_test.cpp). NCCL's estimate:
  // 8 + 4 x 4 + 16 x 2.8 = 68.8 us.
  for (const CollectiveOp op : {CollectiveOp::kAllGather, CollectiveOp::kReduceScatter}) {
    for (const Execution execution : {Execution::kChunk, Execution::kPipelined}) {
      CollectiveBed bed(16, 1);
      const CollectiveResult r =
          bed.run(op, sim::bytes(8), Algorithm::kPat, std::nullopt, std::nullopt, execution);
      EXPECT_EQ(r.algorithm, Algorithm::kPat);
      const double floor = 66.0e-6;
      EXPECT_GE(seconds(r.time), floor) << op_name(op);
      EXPECT_LT(seconds(r.time), floor + 4.0 * 1.3e-6) << op_name(op);
    }
  }
}

TEST(PatRun, LargeCallsAreBoundByTheNics) {
  // 4 GiB on 16 nodes x 1 GPU: each NIC sends 15/16 of it (plan test above) over its Gen5 x16
  // GPU-NIC path, 49.15 GB/s: 81.95 ms, busbw 49.15 GB/s, as a ring's; the latencies (under
  // 0.1 ms) and the pipeline's fill stay under 1%.
  for (const CollectiveOp op : {CollectiveOp::kAllGather, CollectiveOp::kReduceScatter}) {
    CollectiveBed bed(16, 1);
    const CollectiveResult r = bed.run(op, sim::gib(4), Algorithm::kPat, std::nullopt, std::nullopt,
                                       Execution::kPipelined);
    const double bound = 15.0 / 16.0 * 4294967296.0 / (kGen5GBps * 1e9);
    EXPECT_GE(seconds(r.time), bound) << op_name(op);
    EXPECT_LT(seconds(r.time), 1.01 * bound) << op_name(op);
    EXPECT_NEAR(r.busbw_GBps, kGen5GBps, 0.01 * kGen5GBps) << op_name(op);
  }
}

// The chunk run moves every message as its own flows, max-min shared; the pipelined run moves
// each channel's connections as flow groups and times the messages by slice sharing or the
// recurrence (pat_lowering.hpp), no connection below the pace of the channel's lightest one.
TEST(PatRun, ExecutionsAgree) {
  for (const auto& [nodes, size] : {std::pair{10, sim::mib(2)}, std::pair{10, sim::mib(8)},
                                    std::pair{16, sim::mib(32)}, std::pair{33, sim::mib(16)}}) {
    for (const CollectiveOp op : {CollectiveOp::kAllGather, CollectiveOp::kReduceScatter}) {
      CollectiveBed chunk_bed(nodes, 1);
      CollectiveBed pipelined_bed(nodes, 1);
      const double chunk = seconds(
          chunk_bed.run(op, size, Algorithm::kPat, std::nullopt, std::nullopt, Execution::kChunk)
              .time);
      const double pipelined = seconds(
          pipelined_bed
              .run(op, size, Algorithm::kPat, std::nullopt, std::nullopt, Execution::kPipelined)
              .time);
      const std::string times = fmt::format(
          "{} {} nodes {} B: chunk {:.2f} us, pipelined {:.2f} us ({:+.2f}%)", op_name(op), nodes,
          size.count, chunk * 1e6, pipelined * 1e6, (pipelined / chunk - 1.0) * 100.0);
      std::cout << "  " << times << "\n";
      EXPECT_NEAR(pipelined, chunk, 0.02 * chunk) << times;
    }
  }
}

TEST(PatRun, AutoPicksItWhereNcclsTunerDoes) {
  // One GPU per node: NCCL's model prices PAT at 8 + log2(n) x 4 + 2.8 n us and 0.75 of the
  // ring's bandwidth, so it wins the small and middle sizes, and the ring the largest (on 10
  // nodes PAT to 4 MiB).
  CollectiveBed bed(10, 1);
  EXPECT_EQ(
      bed.run(CollectiveOp::kAllGather, sim::kib(64), std::nullopt, std::nullopt, std::nullopt)
          .algorithm,
      Algorithm::kPat);
  EXPECT_EQ(
      bed.run(CollectiveOp::kReduceScatter, sim::gib(1), std::nullopt, std::nullopt, std::nullopt)
          .algorithm,
      Algorithm::kRing);
}

TEST(PatRun, RefusesWhatNcclWouldNotRun) {
  // Several GPUs per node, AllReduce, or a protocol other than Simple.
  CollectiveBed eight(2, 8);
  EXPECT_THROW(
      eight.run(CollectiveOp::kAllGather, sim::mib(1), Algorithm::kPat, std::nullopt, std::nullopt),
      sim::InputError);
  CollectiveBed one(4, 1);
  EXPECT_THROW(
      one.run(CollectiveOp::kAllReduce, sim::mib(1), Algorithm::kPat, std::nullopt, std::nullopt),
      sim::InputError);
  EXPECT_THROW(
      one.run(CollectiveOp::kAllGather, sim::mib(1), Algorithm::kPat, Protocol::kLl, std::nullopt),
      sim::InputError);
}

}  // namespace
}  // namespace railsim::models
