// File: tools/p2p/perftest_output.hpp
// perftest's output as `railsim p2p` writes it: the header block and the tables of ib_write_bw
// and ib_write_lat, in their own columns and formats, and a latency row as JSON. Every header
// value is one word, as perftest's own are, so railsim parse and railsim check read it back.
#pragma once

#include "models/system/rdma_bench.hpp"
#include "models/system/system.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace railsim::tools {

struct LatencyRow {
  std::int64_t size = 0;
  std::int64_t iterations = 0;
  double latency_us = 0.0;  // every statistic of a deterministic model: t_min = t_avg = ...
};

// perftest's header block, as far as the model knows its settings.
void print_banner(std::ostream& out,
                  const char* title,
                  int tx_depth,
                  const std::string& nic_name,
                  const std::string& system_name,
                  models::Endpoint from,
                  models::Endpoint to);

// ib_write_bw's table, bandwidths in Gb/s with `gbits`, else in MB/s (2^20 B).
void print_bandwidth_table(std::ostream& out,
                           const std::vector<models::RdmaStreamResult>& rows,
                           bool gbits);

// ib_write_lat's columns and its format (perftest_parameters.h RESULT_FMT_LAT, REPORT_FMT_LAT).
void print_latency_table(std::ostream& out, const std::vector<LatencyRow>& rows);

nlohmann::ordered_json latency_json(const LatencyRow& r);

}  // namespace railsim::tools
