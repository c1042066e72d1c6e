// File: tests/tools/probes/verbs_report_test.cpp
// railsim-probe-verbs' output on fabricated measurements: the perftest layout read back by
// calibrate's parse_perftest gives the same values within the printed precision (two decimals,
// six for the message rate), and the JSON holds every row in the documented fields.
#include "tools/probes/verbs_report.hpp"

#include "calibrate/parse/perftest.hpp"
#include "calibrate/parse/text_input.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace railsim::tools::probes {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

VerbsReport sample_report() {
  VerbsReport report;
  report.info.device = "mlx5_0";
  report.info.ib_port = 1;
  report.info.link_layer = "IB";
  report.info.mtu_bytes = 4096;
  report.info.tx_depth = 128;
  report.info.cq_mod = 100;
  report.info.local.lid = 0x40;
  report.info.local.qp_num = 0x38d;
  report.info.remote.lid = 0x6e;
  // 2 B at 4.96 / 4.94 MiB/s; 8 MiB at 23326.82 / 23317.65 MiB/s (the CX-6 HDR fixture's values),
  // and one rate in bytes per second that is no whole number of hundredths.
  report.write_bw = {{2, 5000, 4.96 * kMiB, 4.94 * kMiB, 2.588087},
                     {65536, 5000, 1.234567e9, 1.2e9, 0.018311},
                     {8388608, 5000, 23326.82 * kMiB, 23317.65 * kMiB, 0.002915}};
  report.write_lat = {{2, {1000, 1.79, 5.41, 1.87, 1.88, 0.18, 2.03, 5.41}},
                      {1024, {1000, 2.961, 5.764, 3.05, 3.0649, 0.141, 3.38, 5.76}}};
  return report;
}

calibrate::parse::PerftestOutput parse(const std::string& text) {
  return calibrate::parse::parse_perftest(calibrate::parse::TextInput("probe.txt", text));
}

TEST(VerbsReport, PerftestLayoutRoundTripsThroughTheParser) {
  const VerbsReport report = sample_report();
  std::ostringstream out;
  print_perftest(out, report, false);
  const calibrate::parse::PerftestOutput parsed = parse(out.str());
  ASSERT_EQ(parsed.runs.size(), 2U);

  const calibrate::parse::PerftestRun& bw = parsed.runs[0];
  EXPECT_EQ(bw.title, "RDMA_Write BW Test");
  EXPECT_EQ(bw.verb, calibrate::parse::PerftestVerb::kWrite);
  EXPECT_EQ(bw.kind, calibrate::parse::PerftestKind::kBandwidth);
  EXPECT_EQ(bw.device, "mlx5_0");
  EXPECT_EQ(bw.qps, 1);
  EXPECT_EQ(bw.mtu_bytes, 4096);
  EXPECT_EQ(bw.link_type, "IB");
  EXPECT_EQ(bw.connection_type, "RC");
  EXPECT_EQ(bw.bw_unit, calibrate::parse::PerftestRateUnit::kMBPerSec);
  EXPECT_FALSE(bw.truncated);
  ASSERT_EQ(bw.bw_rows.size(), report.write_bw.size());
  for (std::size_t i = 0; i < bw.bw_rows.size(); ++i) {
    const BandwidthStats& want = report.write_bw[i];
    const calibrate::parse::PerftestBandwidthRow& got = bw.bw_rows[i];
    EXPECT_EQ(got.size_bytes, want.size_bytes);
    EXPECT_EQ(got.iterations, want.iterations);
    EXPECT_NEAR(got.bw_peak, want.bw_peak_Bps / kMiB, 0.005);
    EXPECT_NEAR(got.bw_average, want.bw_average_Bps / kMiB, 0.005);
    EXPECT_NEAR(got.msg_rate_Mpps, want.msg_rate_Mpps, 5e-7);
    // And through the parser's own unit conversion back to bytes per second.
    EXPECT_NEAR(calibrate::parse::to_bandwidth(got.bw_average, bw.bw_unit).bytes_per_s,
                want.bw_average_Bps, 0.005 * kMiB);
  }

  const calibrate::parse::PerftestRun& lat = parsed.runs[1];
  EXPECT_EQ(lat.title, "RDMA_Write Latency Test");
  EXPECT_EQ(lat.kind, calibrate::parse::PerftestKind::kLatency);
  ASSERT_EQ(lat.lat_rows.size(), report.write_lat.size());
  for (std::size_t i = 0; i < lat.lat_rows.size(); ++i) {
    const LatencyStats& want = report.write_lat[i].stats;
    const calibrate::parse::PerftestLatencyRow& got = lat.lat_rows[i];
    EXPECT_EQ(got.size_bytes, report.write_lat[i].size_bytes);
    EXPECT_EQ(got.iterations, want.iterations);
    EXPECT_NEAR(got.t_min_us, want.t_min_us, 0.005);
    EXPECT_NEAR(got.t_max_us, want.t_max_us, 0.005);
    EXPECT_NEAR(got.t_typical_us, want.t_typical_us, 0.005);
    ASSERT_TRUE(got.t_avg_us && got.t_stdev_us && got.p99_us && got.p99_9_us);
    EXPECT_NEAR(*got.t_avg_us, want.t_avg_us, 0.005);
    EXPECT_NEAR(*got.t_stdev_us, want.t_stdev_us, 0.005);
    EXPECT_NEAR(*got.p99_us, want.p99_us, 0.005);
    EXPECT_NEAR(*got.p99_9_us, want.p99_9_us, 0.005);
  }
}

TEST(VerbsReport, ReportGbitsPrintsGigabitsPerSecond) {
  const VerbsReport report = sample_report();
  std::ostringstream out;
  print_perftest(out, report, true);
  const calibrate::parse::PerftestOutput parsed = parse(out.str());
  const calibrate::parse::PerftestRun& bw = parsed.runs.at(0);
  EXPECT_EQ(bw.bw_unit, calibrate::parse::PerftestRateUnit::kGbPerSec);
  // 1.2e9 B/s = 9.6 Gb/s; 1.234567e9 B/s = 9.876536 -> 9.88.
  EXPECT_NEAR(bw.bw_rows.at(1).bw_average, 9.60, 1e-9);
  EXPECT_NEAR(bw.bw_rows.at(1).bw_peak, 9.88, 1e-9);
}

TEST(VerbsReport, RoceRunPrintsItsGidAndStillParses) {
  VerbsReport report = sample_report();
  report.info.link_layer = "Ethernet";
  report.info.gid_index = 3;
  report.info.local.gid[0] = 0xfe;
  std::ostringstream out;
  print_perftest(out, report, false);
  EXPECT_NE(out.str().find(" GID: fe00:0000"), std::string::npos);
  const calibrate::parse::PerftestOutput parsed = parse(out.str());
  EXPECT_EQ(parsed.runs.at(0).link_type, "Ethernet");
}

TEST(VerbsReport, OnlyTheMeasuredTestsArePrinted) {
  VerbsReport report = sample_report();
  report.write_bw.clear();
  std::ostringstream out;
  print_perftest(out, report, false);
  const calibrate::parse::PerftestOutput parsed = parse(out.str());
  ASSERT_EQ(parsed.runs.size(), 1U);
  EXPECT_EQ(parsed.runs[0].kind, calibrate::parse::PerftestKind::kLatency);
  EXPECT_EQ(nlohmann::json::parse(verbs_json(report)).count("write_bw"), 0U);
}

TEST(VerbsReport, JsonHoldsEveryRowInGigabitsAndMicroseconds) {
  const VerbsReport report = sample_report();
  const nlohmann::json json = nlohmann::json::parse(verbs_json(report));
  EXPECT_EQ(json["program"], "railsim-probe-verbs");
  EXPECT_EQ(json["device"], "mlx5_0");
  EXPECT_EQ(json["mtu_bytes"], 4096);
  EXPECT_EQ(json.count("gid_index"), 0U);
  ASSERT_EQ(json["write_bw"].size(), 3U);
  const nlohmann::json& bw = json["write_bw"][1];
  EXPECT_EQ(bw["size_bytes"], 65536);
  EXPECT_EQ(bw["iterations"], 5000);
  // 1.2e9 bytes/s x 8 = 9.6e9 bits/s.
  EXPECT_DOUBLE_EQ(bw["bw_average_Gbps"].get<double>(), 9.6);
  EXPECT_DOUBLE_EQ(bw["bw_peak_Gbps"].get<double>(), 1.234567e9 * 8 / 1e9);
  EXPECT_DOUBLE_EQ(bw["msg_rate_Mpps"].get<double>(), 0.018311);
  ASSERT_EQ(json["write_lat"].size(), 2U);
  const nlohmann::json& lat = json["write_lat"][1];
  EXPECT_EQ(lat["size_bytes"], 1024);
  EXPECT_DOUBLE_EQ(lat["t_min_us"].get<double>(), 2.961);
  EXPECT_DOUBLE_EQ(lat["t_typical_us"].get<double>(), 3.05);
  EXPECT_DOUBLE_EQ(lat["t_avg_us"].get<double>(), 3.0649);
  EXPECT_DOUBLE_EQ(lat["p99_us"].get<double>(), 3.38);
}

}  // namespace
}  // namespace railsim::tools::probes
