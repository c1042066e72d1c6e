// File: tools/probes/latency_stats.hpp
// LatencyStats: the columns of an ib_write_lat row, from one-way latency samples in
// microseconds. "typical" is the median, as the task of a typical value is to ignore the few
// iterations an interrupt or a page fault stretched; percentiles are nearest-rank.
#pragma once

#include <cstdint>
#include <vector>

namespace railsim::tools::probes {

struct LatencyStats {
  std::int64_t iterations = 0;
  double t_min_us = 0.0;
  double t_max_us = 0.0;
  double t_typical_us = 0.0;  // median
  double t_avg_us = 0.0;
  double t_stdev_us = 0.0;  // population standard deviation
  double p99_us = 0.0;
  double p99_9_us = 0.0;
};

// The smallest sample s such that at least `fraction` of the samples are <= s (nearest rank);
// `sorted` must be ascending and non-empty, 0 < fraction <= 1.
double nearest_rank(const std::vector<double>& sorted, double fraction);

// Summary of `samples_us` (one-way latencies, any order, at least one).
LatencyStats summarize_latency(std::vector<double> samples_us);

}  // namespace railsim::tools::probes
