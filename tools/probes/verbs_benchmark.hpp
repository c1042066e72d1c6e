// File: tools/probes/verbs_benchmark.hpp
// The two measurements over a connected VerbsConnection. write_bw: the client keeps up to
// tx-depth RDMA writes outstanding, signals one in every cq-mod, and times the signalled
// completions (BandwidthStats). write_lat: ping-pong as ib_write_lat does it: each side writes
// the message into the other's receive region, whose last byte carries the iteration's mark,
// and the other answers once it sees that byte; the client times each round trip and reports
// half of it. It relies on the last byte of a write landing last, which holds on the NICs
// perftest's latency test runs on, but is not promised by the verbs specification.
#pragma once

#include "tools/probes/bandwidth_stats.hpp"
#include "tools/probes/qp_endpoint.hpp"
#include "tools/probes/verbs_connection.hpp"

#include <chrono>
#include <cstdint>
#include <vector>

namespace railsim::tools::probes {

// `iterations` writes of `size_bytes` into the peer's receive region.
BandwidthStats measure_write_bw(VerbsConnection& connection,
                                const QpEndpoint& remote,
                                std::int64_t size_bytes,
                                std::int64_t iterations,
                                int tx_depth,
                                int cq_mod,
                                std::chrono::milliseconds timeout);

// The client's side of the ping-pong: one-way latencies in microseconds, one per iteration.
// Both sides must have cleared their receive regions (clear_receive) before either starts.
std::vector<double> measure_write_lat(VerbsConnection& connection,
                                      const QpEndpoint& remote,
                                      std::int64_t size_bytes,
                                      std::int64_t iterations,
                                      std::chrono::milliseconds timeout);

// The server's side: answers each of the client's `iterations` writes.
void serve_write_lat(VerbsConnection& connection,
                     const QpEndpoint& remote,
                     std::int64_t size_bytes,
                     std::int64_t iterations,
                     std::chrono::milliseconds timeout);

// Zeroes the first `size_bytes` of the receive region, so no mark is left from before.
void clear_receive(VerbsConnection& connection, std::int64_t size_bytes);

}  // namespace railsim::tools::probes
