// File: calibrate/parse/perftest.hpp
// What perftest's ib_write_bw, ib_read_bw, ib_send_bw (-a sweeps, -b bidirectional,
// --report_gbits) and ib_write_lat, ib_read_lat, ib_send_lat print: per test, its header
// block of settings and its result table. A file may hold several tests (both sides of a run,
// a bandwidth and a latency test, a shell session's worth).
#pragma once

#include "calibrate/parse/text_input.hpp"
#include "sim/bandwidth.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railsim::calibrate::parse {

enum class PerftestVerb { kWrite, kRead, kSend };

enum class PerftestKind { kBandwidth, kLatency };

// "write", "read", "send"; "bw", "lat" (as the programs' names end).
const char* to_string(PerftestVerb verb);
const char* to_string(PerftestKind kind);

// The unit of a bandwidth column, as perftest defines it (src/perftest_parameters.c): MB/sec
// (older releases) and MiB/sec (newer ones) are both 2^20 bytes per second; Gb/sec, printed
// with --report_gbits, is 10^9 bits per second.
enum class PerftestRateUnit { kMBPerSec, kMiBPerSec, kGbPerSec };

// "MB/sec", "MiB/sec", "Gb/sec": as the column header prints it.
const char* to_string(PerftestRateUnit unit);

sim::Bandwidth to_bandwidth(double value, PerftestRateUnit unit);

// One "Name : value" of a test's header block, as printed ("Mtu" -> "4096[B]").
struct PerftestSetting {
  std::string name;
  std::string value;
  int line = 0;
};

// A row of a bandwidth test; the rates are in the run's `bw_unit`.
struct PerftestBandwidthRow {
  std::int64_t size_bytes = 0;  // #bytes
  std::int64_t iterations = 0;  // #iterations
  double bw_peak = 0.0;         // BW peak
  double bw_average = 0.0;      // BW average
  double msg_rate_Mpps = 0.0;   // MsgRate, 10^6 messages per second
  int line = 0;
};

// A row of a latency test, in microseconds. Releases before the percentile columns print only
// t_min, t_max and t_typical; the others are then absent.
struct PerftestLatencyRow {
  std::int64_t size_bytes = 0;
  std::int64_t iterations = 0;
  double t_min_us = 0.0;
  double t_max_us = 0.0;
  double t_typical_us = 0.0;
  std::optional<double> t_avg_us;
  std::optional<double> t_stdev_us;
  std::optional<double> p99_us;    // 99% percentile
  std::optional<double> p99_9_us;  // 99.9% percentile
  int line = 0;
};

struct PerftestRun {
  std::string title;  // "RDMA_Write BW Test", as printed
  PerftestVerb verb = PerftestVerb::kWrite;
  PerftestKind kind = PerftestKind::kBandwidth;
  bool bidirectional = false;  // -b: "... Bidirectional BW Test"
  std::vector<PerftestSetting> settings;

  // From the settings: "Device", "Number of qps", "Mtu" are required; the others are empty
  // when a release does not print them.
  std::string device;
  int qps = 0;
  int mtu_bytes = 0;
  std::string link_type;        // "IB", "Ethernet"
  std::string transport_type;   // "IB"
  std::string connection_type;  // "RC", "UC", "UD", ...

  PerftestRateUnit bw_unit = PerftestRateUnit::kMBPerSec;  // bandwidth tests only
  std::vector<PerftestBandwidthRow> bw_rows;               // bandwidth tests
  std::vector<PerftestLatencyRow> lat_rows;                // latency tests

  // The table did not reach its closing rule of dashes (the file, or an excerpt of it, ends
  // there, or the next test begins): its rows are real but there may have been more.
  bool truncated = false;
  int line = 0;  // of the title
};

struct PerftestOutput {
  std::vector<PerftestRun> runs;
};

// Every test in the input; fails (ParseError, file:line) on anything damaged or unknown, and
// when the input holds no perftest test at all.
PerftestOutput parse_perftest(const TextInput& input);

// Whether the input holds a perftest title line and result header (for format detection).
bool looks_like_perftest(const TextInput& input);

}  // namespace railsim::calibrate::parse
