// File: tests/models/collective/collective_trace_test.cpp
// What run_collective puts in a trace: a span per transfer when chunk-accurate, one per
// connection and channel when pipelined, and one for the call around them.
#include "models/collective/collective_trace.hpp"

#include "collective_testbed.hpp"

#include "models/collective/nvls_plan.hpp"
#include "models/collective/ring_layout.hpp"
#include "models/collective/ring_plan.hpp"
#include "models/collective/tree_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace railsim::models {
namespace {

using testing::CollectiveBed;

constexpr int kChannels = 2;

// A bed whose runs report to a trace of its communicator.
struct TracedBed {
  CollectiveBed bed;
  sim::Trace recorded;
  CollectiveTrace trace{recorded, bed.comm};

  TracedBed(int nodes, int gpus_per_node) : bed(nodes, gpus_per_node) {}

  CollectiveResult run(Algorithm algorithm, sim::Bytes size, Execution execution) {
    CollectiveRequest request;
    request.size = size;
    request.comm = bed.comm;
    request.algorithm = algorithm;
    request.protocol = Protocol::kSimple;
    request.channels = kChannels;
    request.execution = execution;
    return run_collective(*bed.system, bed.network, bed.simulator, request, &trace);
  }
};

// The spans on the ranks' tracks, by track; the call's spans are on track 0.
std::map<std::uint32_t, std::vector<sim::TraceSpan>> sends_by_track(const sim::Trace& trace) {
  std::map<std::uint32_t, std::vector<sim::TraceSpan>> by_track;
  for (const sim::TraceSpan& span : trace.spans()) {
    if (span.track.index != 0) {
      by_track[span.track.index].push_back(span);
    }
  }
  return by_track;
}

std::size_t count(const std::map<std::uint32_t, std::vector<sim::TraceSpan>>& by_track) {
  std::size_t n = 0;
  for (const auto& [track, spans] : by_track) {
    n += spans.size();
  }
  return n;
}

// One call span, around every other span.
void expect_one_call_around_the_sends(const sim::Trace& trace, const std::string& name) {
  std::vector<sim::TraceSpan> calls;
  for (const sim::TraceSpan& span : trace.spans()) {
    if (span.track.index == 0) {
      calls.push_back(span);
    }
  }
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(trace.text(calls[0].name), name);
  for (const sim::TraceSpan& span : trace.spans()) {
    EXPECT_LE(calls[0].begin, span.begin);
    EXPECT_GE(calls[0].end, span.end);
  }
}

TEST(CollectiveTrace, ChunkRingHasOneSpanPerTransferAndNoneOverlapOnATrack) {
  // 1 node x 8 GPUs, 64 KiB on 2 channels: each rank sends to its ring successor on each
  // channel, so 16 tracks, each a connection that sends one slice at a time.
  TracedBed t(1, 8);
  const sim::Trace& recorded = t.recorded;
  ASSERT_EQ(t.run(Algorithm::kRing, sim::kib(64), Execution::kChunk).execution, Execution::kChunk);
  const RingLayout layout = ring_layout(*t.bed.system, t.bed.comm, {kChannels, 2, true});
  const RingPlan plan =
      make_ring_plan(CollectiveOp::kAllReduce, Protocol::kSimple, sim::kib(64), layout.rings);
  const auto by_track = sends_by_track(recorded);
  EXPECT_EQ(count(by_track), static_cast<std::size_t>(plan.transfer_count()));
  EXPECT_EQ(by_track.size(), 8u * kChannels);
  for (auto [track, spans] : by_track) {
    std::sort(spans.begin(), spans.end(),
              [](const sim::TraceSpan& a, const sim::TraceSpan& b) { return a.begin < b.begin; });
    for (std::size_t i = 1; i < spans.size(); ++i) {
      EXPECT_GE(spans[i].begin, spans[i - 1].end) << recorded.tracks()[track].name;
    }
  }
  EXPECT_EQ(recorded.text(recorded.spans().front().name).rfind("step ", 0), 0u);
  expect_one_call_around_the_sends(recorded, "all_reduce 64 KiB ring simple");
}

TEST(CollectiveTrace, PipelinedRingHasOneSpanPerConnectionAndChannel) {
  TracedBed t(1, 8);
  const sim::Trace& recorded = t.recorded;
  t.run(Algorithm::kRing, sim::mib(16), Execution::kPipelined);
  const auto by_track = sends_by_track(recorded);
  EXPECT_EQ(count(by_track), 8u * kChannels);
  EXPECT_EQ(by_track.size(), 8u * kChannels);
  EXPECT_EQ(recorded.text(recorded.spans().front().name), "pipelined");
  expect_one_call_around_the_sends(recorded, "all_reduce 16 MiB ring simple");
}

TEST(CollectiveTrace, ChunkTreeSendsUpAndDownOnePerTransfer) {
  TracedBed t(2, 8);
  const sim::Trace& recorded = t.recorded;
  t.run(Algorithm::kTree, sim::mib(2), Execution::kChunk);
  const TreePlan plan = make_tree_plan(Protocol::kSimple, sim::mib(2), t.bed.comm, kChannels);
  EXPECT_EQ(count(sends_by_track(recorded)), static_cast<std::size_t>(plan.transfer_count()));
  std::map<std::string, int> names;
  for (const sim::TraceSpan& span : recorded.spans()) {
    ++names[recorded.text(span.name)];
  }
  EXPECT_EQ(names["up"], names["down"]);
  expect_one_call_around_the_sends(recorded, "all_reduce 2 MiB tree simple");
}

TEST(CollectiveTrace, NvlsOperationsGoToTheSwitchTrack) {
  TracedBed t(1, 8);
  const sim::Trace& recorded = t.recorded;
  t.run(Algorithm::kNvls, sim::mib(1), Execution::kChunk);
  const NvlsPlan plan = make_nvls_plan(CollectiveOp::kAllReduce, sim::mib(1), 8, kChannels);
  EXPECT_EQ(count(sends_by_track(recorded)), static_cast<std::size_t>(plan.transfer_count()));
  EXPECT_NE(recorded.tracks().back().name.find("nvswitch"), std::string::npos);
}

TEST(CollectiveTrace, AnUntracedRunTakesTheSameTime) {
  TracedBed traced_bed(1, 8);
  CollectiveBed plain_bed(1, 8);
  const CollectiveResult traced = traced_bed.run(Algorithm::kRing, sim::kib(64), Execution::kChunk);
  const CollectiveResult plain =
      plain_bed.run(CollectiveOp::kAllReduce, sim::kib(64), Algorithm::kRing, Protocol::kSimple,
                    kChannels, Execution::kChunk);
  EXPECT_EQ(traced.time, plain.time);
}

}  // namespace
}  // namespace railsim::models
