// File: tests/tools/probes/bandwidth_stats_test.cpp
// ib_write_bw's columns from signalled completions worked out by hand.
#include "tools/probes/bandwidth_stats.hpp"

#include <gtest/gtest.h>

namespace railsim::tools::probes {
namespace {

TEST(BandwidthStats, PeakIsTheBestBatchAverageIsTheWholeRun) {
  // 1000-byte writes: 100 by 1 ms (the pipeline filling), 100 more by 1.5 ms, 50 by 2 ms.
  // Batches: 100 kB in 1 ms = 1e8 B/s, 100 kB in 0.5 ms = 2e8 B/s, 50 kB in 0.5 ms = 1e8 B/s.
  // Whole run: 250 writes, 250 kB in 2 ms = 1.25e8 B/s, 0.125 million writes per second.
  const BandwidthStats s = summarize_bandwidth(1000, {{100, 1e-3}, {100, 1.5e-3}, {50, 2e-3}});
  EXPECT_EQ(s.size_bytes, 1000);
  EXPECT_EQ(s.iterations, 250);
  EXPECT_DOUBLE_EQ(s.bw_peak_Bps, 2e8);
  EXPECT_DOUBLE_EQ(s.bw_average_Bps, 1.25e8);
  EXPECT_DOUBLE_EQ(s.msg_rate_Mpps, 0.125);
}

TEST(BandwidthStats, CompletionsPolledTogetherDoNotMakeAnInfinitePeak) {
  // Two completions taken by one poll share a time: 20 writes of 10 B in the 1 us window.
  const BandwidthStats s = summarize_bandwidth(10, {{10, 1e-6}, {10, 1e-6}});
  EXPECT_DOUBLE_EQ(s.bw_peak_Bps, 2e8);
  EXPECT_DOUBLE_EQ(s.bw_average_Bps, 2e8);
}

}  // namespace
}  // namespace railsim::tools::probes
