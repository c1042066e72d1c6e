// File: tools/probes/latency_stats.cpp
#include "tools/probes/latency_stats.hpp"

#include "sim/assert.hpp"
#include "sim/median.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace railsim::tools::probes {

double nearest_rank(const std::vector<double>& sorted, double fraction) {
  RAILSIM_ASSERT(!sorted.empty(), "a percentile of no samples");
  RAILSIM_ASSERT(fraction > 0.0 && fraction <= 1.0, "a percentile outside (0, 1]");
  const auto rank =
      static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(sorted.size())));
  return sorted[std::max<std::size_t>(rank, 1) - 1];
}

LatencyStats summarize_latency(std::vector<double> samples_us) {
  RAILSIM_ASSERT(!samples_us.empty(), "latency statistics of no samples");
  std::sort(samples_us.begin(), samples_us.end());
  const auto n = static_cast<double>(samples_us.size());
  const double mean = std::accumulate(samples_us.begin(), samples_us.end(), 0.0) / n;
  double squares = 0.0;
  for (const double sample : samples_us) {
    squares += (sample - mean) * (sample - mean);
  }
  const double median = sim::median(samples_us);
  LatencyStats stats;
  stats.iterations = static_cast<std::int64_t>(samples_us.size());
  stats.t_min_us = samples_us.front();
  stats.t_max_us = samples_us.back();
  stats.t_typical_us = median;
  stats.t_avg_us = mean;
  stats.t_stdev_us = std::sqrt(squares / n);
  stats.p99_us = nearest_rank(samples_us, 0.99);
  stats.p99_9_us = nearest_rank(samples_us, 0.999);
  return stats;
}

}  // namespace railsim::tools::probes
