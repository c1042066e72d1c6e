// File: tools/probes/bandwidth_stats.hpp
// BandwidthStats: the columns of an ib_write_bw row. The sender signals one write in every
// batch of N and times each signalled completion; the average is all bytes over the whole run
// (first post to last completion), the peak the best rate of one batch (the bytes of the writes
// completed since the previous signalled completion over the time between the two), which
// shows what the link does once the pipeline is full.
#pragma once

#include <cstdint>
#include <vector>

namespace railsim::tools::probes {

// One signalled completion: how many writes it completes (those since the previous one) and
// when it was polled, in seconds since the first post.
struct BatchCompletion {
  std::int64_t writes = 0;
  double at_s = 0.0;
};

struct BandwidthStats {
  std::int64_t size_bytes = 0;
  std::int64_t iterations = 0;
  double bw_peak_Bps = 0.0;     // bytes per second
  double bw_average_Bps = 0.0;  // bytes per second
  double msg_rate_Mpps = 0.0;   // 10^6 writes per second, over the whole run
};

// Statistics of `size_bytes` writes whose signalled completions are `batches` (in time order,
// each at a later time than the last, their writes adding up to the iterations).
BandwidthStats summarize_bandwidth(std::int64_t size_bytes,
                                   const std::vector<BatchCompletion>& batches);

}  // namespace railsim::tools::probes
