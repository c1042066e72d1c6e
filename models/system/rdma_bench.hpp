// File: models/system/rdma_bench.hpp
// perftest's point-to-point RDMA tests run on the model: ib_write_bw (one queue pair keeps
// messages in flight back to back) and ib_write_lat (a ping-pong of one message at a time). Each
// measurement builds a fresh System, so one cannot disturb the next; `prepare` applies what the
// caller's scenario adds to the bare system (its faults).
#pragma once

#include "models/system/system.hpp"
#include "sim/flow_network.hpp"

#include <cstdint>
#include <functional>

namespace railsim::models {

using SystemPreparation = std::function<void(System&, sim::FlowNetwork&)>;

struct RdmaStreamResult {
  std::int64_t size = 0;
  std::int64_t iterations = 0;
  double peak_bytes_per_s = 0.0;     // while the stream is in steady state
  double average_bytes_per_s = 0.0;  // all bytes over the whole run, its last latency included
  double one_message_us = 0.0;       // one message alone: latency plus size at the steady rate
};

// `iterations` messages of `size` bytes from `from` to `to`, back to back on one queue pair:
// one flow per route (several only with adaptive routing), capped at the queue pair's message
// rate times the size.
RdmaStreamResult rdma_write_stream(const SystemSpec& spec,
                                   const SystemPreparation& prepare,
                                   Endpoint from,
                                   Endpoint to,
                                   std::int64_t size,
                                   std::int64_t iterations);

// perftest's default inline limit of RDMA writes (DEF_INLINE_WRITE, perftest_parameters.h):
// ib_write_lat posts messages up to this size inside the work request.
inline constexpr std::int64_t kPerftestInlineWriteBytes = 220;

// ib_write_lat's figure in microseconds: half the round trip of a `size`-byte message, each
// way the path's link latencies, the transfer at the path's bottleneck and the processing
// latency of the NIC at each end, plus the sender's DMA read of the payload when it is larger
// than `inline_bytes`; a fault on one direction counts half.
double rdma_write_latency_us(const SystemSpec& spec,
                             const SystemPreparation& prepare,
                             Endpoint from,
                             Endpoint to,
                             std::int64_t size,
                             std::int64_t inline_bytes = kPerftestInlineWriteBytes);

}  // namespace railsim::models
