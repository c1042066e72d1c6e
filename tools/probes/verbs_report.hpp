// File: tools/probes/verbs_report.hpp
// What railsim-probe-verbs prints: JSON (one object, a row per size and test), or perftest's
// ib_write_bw / ib_write_lat layout (settings block, address lines, result table between rules)
// so that `railsim parse` and calibrate's parse_perftest read it as they read perftest's own.
#pragma once

#include "tools/probes/bandwidth_stats.hpp"
#include "tools/probes/latency_stats.hpp"
#include "tools/probes/qp_endpoint.hpp"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace railsim::tools::probes {

// The connection the measurements were taken on, for the header block.
struct VerbsRunInfo {
  std::string device;  // "mlx5_0"
  int ib_port = 1;
  std::string link_layer;  // "IB" or "Ethernet", as perftest prints it
  int mtu_bytes = 0;       // the path MTU the queue pair was given
  int gid_index = -1;      // -1: no GRH
  int tx_depth = 0;
  int cq_mod = 0;
  QpEndpoint local;
  QpEndpoint remote;
};

struct LatencyRow {
  std::int64_t size_bytes = 0;
  LatencyStats stats;
};

struct VerbsReport {
  VerbsRunInfo info;
  std::vector<BandwidthStats> write_bw;  // empty when not measured
  std::vector<LatencyRow> write_lat;     // empty when not measured
};

// Bandwidth in the units of perftest's columns: MB/sec is 2^20 bytes/s, Gb/sec 10^9 bits/s.
double in_perftest_mb(double bytes_per_s);
double in_gbits(double bytes_per_s);

// Each measured test as perftest prints it; `report_gbits` as its --report_gbits.
void print_perftest(std::ostream& out, const VerbsReport& report, bool report_gbits);

// {"program": "railsim-probe-verbs", "device": ..., "write_bw": [{"size_bytes": ...,
// "bw_peak_Gbps": ...}], "write_lat": [{"size_bytes": ..., "t_typical_us": ...}]}, indented.
std::string verbs_json(const VerbsReport& report);

}  // namespace railsim::tools::probes
