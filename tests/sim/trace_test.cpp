// File: tests/sim/trace_test.cpp
// The trace recorder: what it keeps of processes, tracks, spans and samples, what it rejects,
// and how its memory bound drops and counts what is past the cap.
#include "sim/trace.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace railsim::sim {
namespace {

TEST(Trace, SpansKeepTheirTrackNameTimesAndArgs) {
  Trace trace;
  const TraceProcessId rank = trace.add_process("rank 0");
  const TraceTrackId channel0 = trace.add_track(rank, "channel 0");
  const TraceTrackId channel1 = trace.add_track(rank, "channel 1");
  trace.add_span(channel1, "send", at(us(1)), at(us(3)),
                 {{"bytes", std::int64_t{4096}}, {"share", 0.5}, {"peer", "rank 1"}});
  trace.add_span(channel0, "send", at(us(2)), at(us(2)));  // zero length: kept

  ASSERT_EQ(trace.spans().size(), 2U);
  const TraceSpan& first = trace.spans()[0];
  EXPECT_EQ(first.track, channel1);
  EXPECT_EQ(trace.text(first.name), "send");
  EXPECT_EQ(first.begin, at(us(1)));
  EXPECT_EQ(first.end, at(us(3)));
  const auto args = trace.args(first);
  ASSERT_EQ(args.size(), 3U);
  EXPECT_EQ(trace.text(args[0].key), "bytes");
  EXPECT_EQ(std::get<std::int64_t>(args[0].value), 4096);
  EXPECT_EQ(trace.text(args[1].key), "share");
  EXPECT_EQ(std::get<double>(args[1].value), 0.5);
  EXPECT_EQ(trace.text(args[2].key), "peer");
  EXPECT_EQ(std::get<std::string>(args[2].value), "rank 1");

  const TraceSpan& second = trace.spans()[1];
  EXPECT_EQ(second.name, first.name);  // one copy of "send", however many spans use it
  EXPECT_TRUE(trace.args(second).empty());
  EXPECT_EQ(trace.tracks()[channel0.index].process, rank);
  EXPECT_EQ(trace.tracks()[channel1.index].name, "channel 1");
}

TEST(Trace, CountersBelongToTheirProcessAndKeepTheirSamples) {
  Trace trace;
  trace.add_process("rank 0");
  const TraceProcessId links = trace.add_process("links");
  const TraceCounterId counter = trace.add_counter(links, "a>b", "GB/s");
  trace.add_sample(counter, at(us(0)), 10.0);
  trace.add_sample(counter, at(ms(300)), 4.0);

  ASSERT_EQ(trace.counters().size(), 1U);
  EXPECT_EQ(trace.counters()[0].process, links);
  EXPECT_EQ(trace.counters()[0].name, "a>b");
  EXPECT_EQ(trace.counters()[0].unit, "GB/s");
  ASSERT_EQ(trace.samples().size(), 2U);
  EXPECT_EQ(trace.samples()[1].counter, counter);
  EXPECT_EQ(trace.samples()[1].time, at(ms(300)));
  EXPECT_EQ(trace.samples()[1].value, 4.0);
  EXPECT_EQ(trace.dropped_spans(), 0U);
  EXPECT_FALSE(trace.first_dropped());
}

TEST(Trace, RejectsDanglingIdsAndSpansThatEndBeforeTheyBegin) {
  Trace trace;
  EXPECT_THROW(trace.add_track(TraceProcessId{0}, "orphan"), InputError);
  EXPECT_THROW(trace.add_counter(TraceProcessId{0}, "orphan", "GB/s"), InputError);
  const TraceProcessId process = trace.add_process("rank 0");
  const TraceTrackId track = trace.add_track(process, "channel 0");
  EXPECT_THROW(trace.add_span(TraceTrackId{1}, "x", at(us(0)), at(us(1))), InputError);
  EXPECT_THROW(trace.add_span(track, "backwards", at(us(2)), at(us(1))), InputError);
  EXPECT_THROW(trace.add_sample(TraceCounterId{0}, at(us(0)), 1.0), InputError);
  EXPECT_TRUE(trace.spans().empty());
}

TEST(Trace, KeepsTheFirstSpansAndSamplesUpToTheCapAndCountsTheRest) {
  // Caps of 2 spans and 1 sample. Spans begin at 0, 1, 5 and 3 us: the last two are dropped,
  // and the earlier of them began at 3 us. Samples at 9, 7 and 8 us: the last two are dropped,
  // the earlier at 7 us. The record is complete up to min(3, 7) = 3 us.
  Trace trace(TraceLimits{2, 1});
  const TraceTrackId track = trace.add_track(trace.add_process("rank 0"), "channel 0");
  const TraceCounterId counter = trace.add_counter(TraceProcessId{0}, "load", "GB/s");
  for (const double begin_us : {0.0, 1.0, 5.0, 3.0}) {
    trace.add_span(track, "send", at(us(begin_us)), at(us(begin_us + 0.5)), {{"step", 1.0}});
  }
  for (const double time_us : {9.0, 7.0, 8.0}) {
    trace.add_sample(counter, at(us(time_us)), 1.0);
  }
  ASSERT_EQ(trace.spans().size(), 2U);
  EXPECT_EQ(trace.spans()[1].begin, at(us(1)));
  EXPECT_EQ(trace.dropped_spans(), 2U);
  ASSERT_EQ(trace.samples().size(), 1U);
  EXPECT_EQ(trace.samples()[0].time, at(us(9)));
  EXPECT_EQ(trace.dropped_samples(), 2U);
  ASSERT_TRUE(trace.first_dropped());
  EXPECT_EQ(*trace.first_dropped(), at(us(3)));
}

}  // namespace
}  // namespace railsim::sim
