// File: tests/tools/chrome_trace_test.cpp
// The Chrome/Perfetto trace writer: each test writes a small sim::Trace, parses the JSON back
// and checks the events by hand-derived values (times in microseconds: 1 us = 10^6 ps).
#include "tools/chrome_trace.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

using nlohmann::json;

std::string written(const sim::Trace& trace) {
  std::ostringstream out;
  write_chrome_trace(trace, out);
  return out.str();
}

json parsed(const sim::Trace& trace) { return json::parse(written(trace)); }

// The events of phase `ph` (and name, if given), in file order.
std::vector<json> events(const json& file, const std::string& ph, const std::string& name = "") {
  std::vector<json> found;
  for (const json& event : file.at("traceEvents")) {
    if (event.at("ph") == ph && (name.empty() || event.at("name") == name)) {
      found.push_back(event);
    }
  }
  return found;
}

TEST(ChromeTrace, EmptyTraceIsAnObjectWithNoEvents) {
  const json file = parsed(sim::Trace{});
  EXPECT_TRUE(file.at("traceEvents").empty());
  EXPECT_EQ(file.at("displayTimeUnit"), "ns");
  EXPECT_EQ(file.at("otherData").at("dropped_spans"), 0);
  EXPECT_EQ(file.at("otherData").at("dropped_counter_samples"), 0);
}

TEST(ChromeTrace, SpanIsACompleteEventInMicroseconds) {
  // A span from 1 us to 3 us: ts = 1.0, dur = 2.0, on pid 1 (the first process) and tid 1
  // (the first track), with its arguments as they were typed.
  sim::Trace trace;
  const sim::TraceTrackId channel = trace.add_track(trace.add_process("rank 0"), "channel 0");
  trace.add_span(channel, "send", sim::at(sim::us(1)), sim::at(sim::us(3)),
                 {{"bytes", std::int64_t{4096}}, {"share", 0.5}, {"peer", "rank 1"}});
  const std::vector<json> spans = events(parsed(trace), "X");
  ASSERT_EQ(spans.size(), 1U);
  const json& span = spans[0];
  EXPECT_EQ(span.at("name"), "send");
  EXPECT_EQ(span.at("ts").get<double>(), 1.0);
  EXPECT_EQ(span.at("dur").get<double>(), 2.0);
  EXPECT_EQ(span.at("pid"), 1);
  EXPECT_EQ(span.at("tid"), 1);
  EXPECT_EQ(span.at("args").at("bytes"), 4096);
  EXPECT_TRUE(span.at("args").at("bytes").is_number_integer());
  EXPECT_EQ(span.at("args").at("share"), 0.5);
  EXPECT_EQ(span.at("args").at("peer"), "rank 1");
}

TEST(ChromeTrace, SubNanosecondTimesSurviveAsFractionalMicroseconds) {
  // 1,500 ps to 1,750 ps: ts = 1500 / 10^6 = 0.0015 us, dur = 250 / 10^6 = 0.00025 us. And at
  // 100 s (10^14 ps) plus 1 ps: ts = 100,000,000.000001 us, still apart from 100 s exactly.
  sim::Trace trace;
  const sim::TraceTrackId track = trace.add_track(trace.add_process("rank 0"), "channel 0");
  trace.add_span(track, "short", sim::at(sim::ps(1'500)), sim::at(sim::ps(1'750)));
  trace.add_span(track, "late", sim::at(sim::ps(100'000'000'000'001)),
                 sim::at(sim::ps(100'000'000'000'001)));
  const json file = parsed(trace);
  const json short_span = events(file, "X", "short").at(0);
  EXPECT_DOUBLE_EQ(short_span.at("ts").get<double>(), 0.0015);
  EXPECT_DOUBLE_EQ(short_span.at("dur").get<double>(), 0.00025);
  const double late_us = events(file, "X", "late").at(0).at("ts").get<double>();
  EXPECT_NEAR(late_us, 100'000'000.000001, 1e-7);
  EXPECT_GT(late_us, 100'000'000.0);
}

TEST(ChromeTrace, MetadataNamesProcessesAndTracksAndKeepsTheirOrder) {
  // Processes "rank 0" and "rank 1" are pids 1 and 2 with sort indices 0 and 1. Tracks get
  // tids in creation order across processes: rank 1's "channel 0" is tid 1 (sort index 0),
  // rank 0's "channel 0" tid 2 and "channel 1" tid 3.
  sim::Trace trace;
  const sim::TraceProcessId rank0 = trace.add_process("rank 0");
  const sim::TraceProcessId rank1 = trace.add_process("rank 1");
  trace.add_track(rank1, "channel 0");
  trace.add_track(rank0, "channel 0");
  trace.add_track(rank0, "channel 1");
  const json file = parsed(trace);

  const std::vector<json> names = events(file, "M", "process_name");
  ASSERT_EQ(names.size(), 2U);
  EXPECT_EQ(names[0].at("pid"), 1);
  EXPECT_EQ(names[0].at("args").at("name"), "rank 0");
  EXPECT_EQ(names[1].at("pid"), 2);
  EXPECT_EQ(names[1].at("args").at("name"), "rank 1");
  const std::vector<json> process_order = events(file, "M", "process_sort_index");
  ASSERT_EQ(process_order.size(), 2U);
  EXPECT_EQ(process_order[1].at("pid"), 2);
  EXPECT_EQ(process_order[1].at("args").at("sort_index"), 1);

  const std::vector<json> threads = events(file, "M", "thread_name");
  ASSERT_EQ(threads.size(), 3U);
  const std::vector<std::vector<int>> pid_tid = {{2, 1}, {1, 2}, {1, 3}};
  const std::vector<std::string> thread_names = {"channel 0", "channel 0", "channel 1"};
  const std::vector<json> thread_order = events(file, "M", "thread_sort_index");
  ASSERT_EQ(thread_order.size(), 3U);
  for (std::size_t t = 0; t < 3; ++t) {
    EXPECT_EQ(threads[t].at("pid"), pid_tid[t][0]) << t;
    EXPECT_EQ(threads[t].at("tid"), pid_tid[t][1]) << t;
    EXPECT_EQ(threads[t].at("args").at("name"), thread_names[t]) << t;
    EXPECT_EQ(thread_order[t].at("tid"), pid_tid[t][1]) << t;
    EXPECT_EQ(thread_order[t].at("args").at("sort_index"), t) << t;
  }
}

TEST(ChromeTrace, CounterSamplesAreCounterEventsWithTheUnitAsTheirSeries) {
  // Link "a>b" under the second process (pid 2): 10 GB/s from 0, 4 GB/s from 300 ms
  // (300,000 us). Samples added out of time order come out in time order.
  sim::Trace trace;
  trace.add_process("rank 0");
  const sim::TraceCounterId counter = trace.add_counter(trace.add_process("links"), "a>b", "GB/s");
  trace.add_sample(counter, sim::at(sim::ms(300)), 4.0);
  trace.add_sample(counter, sim::at(sim::ms(0)), 10.0);
  const std::vector<json> samples = events(parsed(trace), "C");
  ASSERT_EQ(samples.size(), 2U);
  EXPECT_EQ(samples[0].at("name"), "a>b");
  EXPECT_EQ(samples[0].at("pid"), 2);
  EXPECT_EQ(samples[0].at("ts").get<double>(), 0.0);
  EXPECT_EQ(samples[0].at("args").at("GB/s"), 10.0);
  EXPECT_EQ(samples[1].at("ts").get<double>(), 300'000.0);
  EXPECT_EQ(samples[1].at("args").at("GB/s"), 4.0);
  EXPECT_EQ(samples[1].at("args").size(), 1U);
}

TEST(ChromeTrace, OnlyTheCountersThatCarriedMostAreWrittenAndTheFileSaysSo) {
  // Three links: a at 10 GB/s for 1 ms (10 MB), b at 30 GB/s for 0.5 ms (15 MB), c at 2 GB/s
  // for 3 ms (6 MB). Two written, b and a, their samples in time order (b drops at 0.5 ms, a at
  // 1 ms); c not at all.
  sim::Trace trace;
  const sim::TraceProcessId links = trace.add_process("links");
  const auto step = [&](const char* name, double gbps, double ms) {
    const sim::TraceCounterId counter = trace.add_counter(links, name, "GB/s");
    trace.add_sample(counter, sim::at(sim::ms(0)), gbps);
    trace.add_sample(counter, sim::at(sim::us(ms * 1000.0)), 0.0);
  };
  step("a", 10.0, 1.0);
  step("b", 30.0, 0.5);
  step("c", 2.0, 3.0);
  std::ostringstream out;
  write_chrome_trace(trace, out, {.max_counters = 2});
  const json file = json::parse(out.str());
  std::vector<std::string> names;
  for (const json& sample : events(file, "C")) {
    names.push_back(sample.at("name"));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "b", "a"}));
  EXPECT_EQ(file.at("otherData").at("counters"), 3);
  EXPECT_EQ(file.at("otherData").at("counters_written"), 2);
  // 0: every counter.
  std::ostringstream all;
  write_chrome_trace(trace, all, {.max_counters = 0});
  EXPECT_EQ(events(json::parse(all.str()), "C").size(), 6U);
}

TEST(ChromeTrace, InstantsMarkTheWholeTimeline) {
  sim::Trace trace;
  trace.add_instant("fault: n2.mlx5_0>leaf0 x0.5", sim::at(sim::us(2)));
  const std::vector<json> marks = events(parsed(trace), "i");
  ASSERT_EQ(marks.size(), 1U);
  EXPECT_EQ(marks[0].at("name"), "fault: n2.mlx5_0>leaf0 x0.5");
  EXPECT_EQ(marks[0].at("s"), "g");
  EXPECT_EQ(marks[0].at("ts").get<double>(), 2.0);
}

TEST(ChromeTrace, EnclosingSpanComesBeforeWhatItEnclosesAndSpansGoInTimeOrder) {
  // Added: inner [0, 1] us, a later span [5, 6] us, outer [0, 2] us. Written by begin, the
  // longer first among equal begins: outer, inner, later.
  sim::Trace trace;
  const sim::TraceTrackId track = trace.add_track(trace.add_process("rank 0"), "channel 0");
  trace.add_span(track, "inner", sim::at(sim::us(0)), sim::at(sim::us(1)));
  trace.add_span(track, "later", sim::at(sim::us(5)), sim::at(sim::us(6)));
  trace.add_span(track, "outer", sim::at(sim::us(0)), sim::at(sim::us(2)));
  const std::vector<json> spans = events(parsed(trace), "X");
  ASSERT_EQ(spans.size(), 3U);
  EXPECT_EQ(spans[0].at("name"), "outer");
  EXPECT_EQ(spans[1].at("name"), "inner");
  EXPECT_EQ(spans[2].at("name"), "later");
}

TEST(ChromeTrace, DropsAreCountedAndMarkedWhereTheRecordStopsBeingComplete) {
  // A cap of 1 span: of spans at 1 us and 4 us the second is dropped, so otherData counts 1
  // and a global instant event marks 4 us.
  sim::Trace trace(sim::TraceLimits{1, 10});
  const sim::TraceTrackId track = trace.add_track(trace.add_process("rank 0"), "channel 0");
  trace.add_span(track, "kept", sim::at(sim::us(1)), sim::at(sim::us(2)));
  trace.add_span(track, "dropped", sim::at(sim::us(4)), sim::at(sim::us(5)));
  const json file = parsed(trace);
  EXPECT_EQ(file.at("otherData").at("dropped_spans"), 1);
  EXPECT_EQ(events(file, "X").size(), 1U);
  const std::vector<json> marks = events(file, "i");
  ASSERT_EQ(marks.size(), 1U);
  EXPECT_EQ(marks[0].at("s"), "g");
  EXPECT_EQ(marks[0].at("ts").get<double>(), 4.0);
  EXPECT_NE(marks[0].at("name").get<std::string>().find("1 spans"), std::string::npos);
}

TEST(ChromeTrace, SameTraceGivesTheSameBytes) {
  // Two traces built alike, and one written twice: one file.
  const auto build = [] {
    sim::Trace trace;
    const sim::TraceProcessId rank = trace.add_process("rank 0");
    const sim::TraceTrackId track = trace.add_track(rank, "channel 0");
    const sim::TraceCounterId counter = trace.add_counter(rank, "load", "GB/s");
    trace.add_span(track, "send", sim::at(sim::ns(1.5)), sim::at(sim::ns(7)),
                   {{"bytes", std::int64_t{1}}, {"share", 1.0 / 3.0}});
    trace.add_sample(counter, sim::at(sim::ns(1.5)), 1.0 / 3.0);
    return trace;
  };
  const sim::Trace trace = build();
  EXPECT_EQ(written(trace), written(trace));
  EXPECT_EQ(written(trace), written(build()));
}

}  // namespace
}  // namespace railsim::tools
