// File: tests/tools/probes/latency_stats_test.cpp
// ib_write_lat's columns from samples worked out by hand.
#include "tools/probes/latency_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace railsim::tools::probes {
namespace {

TEST(LatencyStats, FiveSamplesByHand) {
  // Sorted: 1, 2, 3, 4, 10. Mean 4; deviations -3 -2 -1 0 6, squares sum 50, stdev sqrt(10).
  const LatencyStats s = summarize_latency({3.0, 1.0, 10.0, 2.0, 4.0});
  EXPECT_EQ(s.iterations, 5);
  EXPECT_DOUBLE_EQ(s.t_min_us, 1.0);
  EXPECT_DOUBLE_EQ(s.t_max_us, 10.0);
  EXPECT_DOUBLE_EQ(s.t_typical_us, 3.0);
  EXPECT_DOUBLE_EQ(s.t_avg_us, 4.0);
  EXPECT_DOUBLE_EQ(s.t_stdev_us, std::sqrt(10.0));
  // Nearest rank: ceil(0.99 x 5) = 5th and ceil(0.999 x 5) = 5th sample.
  EXPECT_DOUBLE_EQ(s.p99_us, 10.0);
  EXPECT_DOUBLE_EQ(s.p99_9_us, 10.0);
}

TEST(LatencyStats, TypicalOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(summarize_latency({4.0, 1.0, 2.0, 3.0}).t_typical_us, 2.5);
}

TEST(LatencyStats, PercentilesOfAThousandSamplesAreNearestRank) {
  // Samples 1..1000: the 99% rank is the 990th sample, the 99.9% rank the 999th.
  std::vector<double> samples;
  samples.reserve(1000);
  for (int i = 1000; i >= 1; --i) {
    samples.push_back(i);
  }
  const LatencyStats s = summarize_latency(samples);
  EXPECT_DOUBLE_EQ(s.p99_us, 990.0);
  EXPECT_DOUBLE_EQ(s.p99_9_us, 999.0);
  EXPECT_DOUBLE_EQ(s.t_typical_us, 500.5);
}

}  // namespace
}  // namespace railsim::tools::probes
