// File: tools/probes/bandwidth_stats.cpp
#include "tools/probes/bandwidth_stats.hpp"

#include "sim/assert.hpp"

#include <algorithm>

namespace railsim::tools::probes {

BandwidthStats summarize_bandwidth(std::int64_t size_bytes,
                                   const std::vector<BatchCompletion>& batches) {
  RAILSIM_ASSERT(!batches.empty(), "bandwidth statistics of no completions");
  BandwidthStats stats;
  stats.size_bytes = size_bytes;
  const auto size = static_cast<double>(size_bytes);
  double previous_at = 0.0;
  std::int64_t window_writes = 0;  // completed in the last window of non-zero length
  double window_s = 0.0;
  for (const BatchCompletion& batch : batches) {
    stats.iterations += batch.writes;
    const double span = batch.at_s - previous_at;
    if (span > 0.0) {
      window_writes = batch.writes;
      window_s = span;
      previous_at = batch.at_s;
    } else {
      // Polled within the clock's resolution of the previous one: its writes belong to the
      // same window (as a rate of their own they would be infinite).
      window_writes += batch.writes;
    }
    if (window_s > 0.0) {
      stats.bw_peak_Bps =
          std::max(stats.bw_peak_Bps, static_cast<double>(window_writes) * size / window_s);
    }
  }
  const double total_s = batches.back().at_s;
  if (total_s > 0.0) {
    const auto writes = static_cast<double>(stats.iterations);
    stats.bw_average_Bps = writes * size / total_s;
    stats.msg_rate_Mpps = writes / total_s / 1e6;
  }
  return stats;
}

}  // namespace railsim::tools::probes
