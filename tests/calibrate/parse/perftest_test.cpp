// File: tests/calibrate/parse/perftest_test.cpp
// The perftest parser against the real logs of tests/data: every test, setting and row equals
// the hand transcription in the .json beside the log; the units follow perftest's definitions.
#include "calibrate/parse/perftest.hpp"

#include "tests/calibrate/fixture.hpp"

#include <gtest/gtest.h>

#include <string>

namespace railsim::calibrate::parse {
namespace {

using nlohmann::json;

constexpr const char* kCx7 = "perftest_write+read+send-bw+send-lat_cx7-ndr-b2b_csegpu";
constexpr const char* kCx6Sweep =
    "perftest_write-bw-sweep+write-lat-sweep_cx6-hdr_2node_node0-node1";

std::string setting(const PerftestRun& run, const std::string& name) {
  for (const PerftestSetting& s : run.settings) {
    if (s.name == name) {
      return s.value;
    }
  }
  return "<absent>";
}

// Every test, setting and row of the transcription, in order.
void expect_matches_transcription(const PerftestOutput& output, const json& expected) {
  const json& tests = expected.at("tests");
  ASSERT_EQ(output.runs.size(), tests.size());
  for (std::size_t t = 0; t < tests.size(); ++t) {
    const PerftestRun& run = output.runs[t];
    const json& test = tests[t];
    SCOPED_TRACE(run.title);
    EXPECT_EQ(run.title, test.at("test"));
    EXPECT_EQ(to_string(run.kind), test.at("kind"));
    EXPECT_FALSE(run.truncated);
    for (const auto& [name, value] : test.at("settings").items()) {
      EXPECT_EQ(setting(run, name), value.get<std::string>()) << name;
    }
    const json& rows = test.at("rows");
    if (run.kind == PerftestKind::kBandwidth) {
      EXPECT_EQ(to_string(run.bw_unit), test.at("bw_unit"));
      ASSERT_EQ(run.bw_rows.size(), rows.size());
      for (std::size_t r = 0; r < rows.size(); ++r) {
        const PerftestBandwidthRow& row = run.bw_rows[r];
        EXPECT_EQ(row.size_bytes, rows[r].at("bytes"));
        EXPECT_EQ(row.iterations, rows[r].at("iterations"));
        EXPECT_DOUBLE_EQ(row.bw_peak, rows[r].at("bw_peak"));
        EXPECT_DOUBLE_EQ(row.bw_average, rows[r].at("bw_average"));
        EXPECT_DOUBLE_EQ(row.msg_rate_Mpps, rows[r].at("msg_rate_Mpps"));
      }
      continue;
    }
    ASSERT_EQ(run.lat_rows.size(), rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const PerftestLatencyRow& row = run.lat_rows[r];
      EXPECT_EQ(row.size_bytes, rows[r].at("bytes"));
      EXPECT_EQ(row.iterations, rows[r].at("iterations"));
      EXPECT_DOUBLE_EQ(row.t_min_us, rows[r].at("t_min_us"));
      EXPECT_DOUBLE_EQ(row.t_max_us, rows[r].at("t_max_us"));
      EXPECT_DOUBLE_EQ(row.t_typical_us, rows[r].at("t_typical_us"));
      EXPECT_DOUBLE_EQ(row.t_avg_us.value(), rows[r].at("t_avg_us"));
      EXPECT_DOUBLE_EQ(row.t_stdev_us.value(), rows[r].at("t_stdev_us"));
      EXPECT_DOUBLE_EQ(row.p99_us.value(), rows[r].at("p99_us"));
      EXPECT_DOUBLE_EQ(row.p99_9_us.value(), rows[r].at("p99_9_us"));
    }
  }
}

TEST(Perftest, Cx7LogOfFourTestsMatchesItsTranscription) {
  const PerftestOutput output = parse_perftest(test::fixture_text(kCx7));
  expect_matches_transcription(output, test::fixture_json(kCx7));
}

TEST(Perftest, Cx6SweepsMatchTheirTranscription) {
  const PerftestOutput output = parse_perftest(test::fixture_text(kCx6Sweep));
  expect_matches_transcription(output, test::fixture_json(kCx6Sweep));
}

// From the raw text: the order of the tests and what their titles and header blocks say.
TEST(Perftest, TitlesGiveVerbKindAndTheHeaderGivesDeviceQpsMtu) {
  const PerftestOutput output = parse_perftest(test::fixture_text(kCx7));
  ASSERT_EQ(output.runs.size(), 4u);
  EXPECT_EQ(output.runs[0].verb, PerftestVerb::kSend);
  EXPECT_EQ(output.runs[0].kind, PerftestKind::kBandwidth);
  EXPECT_EQ(output.runs[1].verb, PerftestVerb::kSend);
  EXPECT_EQ(output.runs[1].kind, PerftestKind::kLatency);
  EXPECT_EQ(output.runs[2].verb, PerftestVerb::kRead);
  EXPECT_EQ(output.runs[3].verb, PerftestVerb::kWrite);
  for (const PerftestRun& run : output.runs) {
    EXPECT_FALSE(run.bidirectional);
    EXPECT_EQ(run.device, "mlx5_0");
    EXPECT_EQ(run.qps, 1);
    EXPECT_EQ(run.mtu_bytes, 4096);
    EXPECT_EQ(run.link_type, "IB");
    EXPECT_EQ(run.transport_type, "IB");
    EXPECT_EQ(run.connection_type, "RC");
  }
  // Settings the transcription left out, as the raw text has them: the second pair of a line.
  EXPECT_EQ(setting(output.runs[0], "Lock-free"), "OFF");
  EXPECT_EQ(setting(output.runs[0], "CQE Poll Batch"), "16");
  EXPECT_EQ(setting(output.runs[3], "CQE Poll Batch"), "Dynamic");
  EXPECT_EQ(output.runs[3].line, 111);  // "RDMA_Write BW Test"
}

// perftest's units (linux-rdma/perftest: src/perftest_parameters.h): MB/sec is 2^20 B/s, Gb/sec
// 10^9 bit/s. By hand: the CX-6 plateau of 23317.65 MB/sec is 23317.65 x 1048576 x 8 / 1e9 =
// 195.602 Gb/s; the CX-7 write 392.34 Gb/sec is 49.0425e9 B/s; the send 46557.03 MiB/sec is
// 390.549 Gb/s.
TEST(Perftest, UnitsAreThoseOfPerftest) {
  EXPECT_NEAR(to_bandwidth(23317.65, PerftestRateUnit::kMBPerSec).in_gbps(), 195.602, 0.001);
  EXPECT_NEAR(to_bandwidth(392.34, PerftestRateUnit::kGbPerSec).bytes_per_s, 49.0425e9, 1e3);
  EXPECT_NEAR(to_bandwidth(46557.03, PerftestRateUnit::kMiBPerSec).in_gbps(), 390.549, 0.001);
  const PerftestOutput sweep = parse_perftest(test::fixture_text(kCx6Sweep));
  EXPECT_EQ(sweep.runs[0].bw_unit, PerftestRateUnit::kMBPerSec);
  const PerftestOutput cx7 = parse_perftest(test::fixture_text(kCx7));
  EXPECT_EQ(cx7.runs[0].bw_unit, PerftestRateUnit::kMiBPerSec);
  EXPECT_EQ(cx7.runs[2].bw_unit, PerftestRateUnit::kGbPerSec);
}

// perftest -b prints "... Bidirectional BW Test"; RoCE runs print GID lines in the address
// block; a release without the percentile columns prints five latency columns.
TEST(Perftest, BidirectionalRoceAndOldLatencyLayouts) {
  const TextInput input("bidir.txt",
                        "---------------------------------------------------------------\n"
                        "                    RDMA_Write Bidirectional BW Test\n"
                        " Dual-port       : OFF          Device         : mlx5_1\n"
                        " Number of qps   : 8            Transport type : IB\n"
                        " Mtu             : 1024[B]\n"
                        " Link type       : Ethernet\n"
                        " GID index       : 3\n"
                        "---------------------------------------------------------------\n"
                        " local address: LID 0000 QPN 0x0087 PSN 0x176d37\n"
                        " GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:23:01\n"
                        "---------------------------------------------------------------\n"
                        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   "
                        "MsgRate[Mpps]\n"
                        " 65536      5000             365.10             364.95\t\t   0.696\n"
                        "---------------------------------------------------------------\n"
                        "                    RDMA_Read Latency Test\n"
                        " Device         : mlx5_1\n"
                        " Number of qps   : 1\n"
                        " Mtu             : 1024[B]\n"
                        "---------------------------------------------------------------\n"
                        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]\n"
                        " 2       1000          2.91           9.80         3.02\n"
                        "---------------------------------------------------------------\n");
  const PerftestOutput output = parse_perftest(input);
  ASSERT_EQ(output.runs.size(), 2u);
  const PerftestRun& bidir = output.runs[0];
  EXPECT_TRUE(bidir.bidirectional);
  EXPECT_EQ(bidir.verb, PerftestVerb::kWrite);
  EXPECT_EQ(bidir.qps, 8);
  EXPECT_EQ(bidir.mtu_bytes, 1024);
  EXPECT_EQ(bidir.link_type, "Ethernet");
  ASSERT_EQ(bidir.bw_rows.size(), 1u);
  EXPECT_DOUBLE_EQ(bidir.bw_rows[0].bw_average, 364.95);
  const PerftestRun& lat = output.runs[1];
  EXPECT_EQ(lat.verb, PerftestVerb::kRead);
  ASSERT_EQ(lat.lat_rows.size(), 1u);
  EXPECT_DOUBLE_EQ(lat.lat_rows[0].t_typical_us, 3.02);
  EXPECT_FALSE(lat.lat_rows[0].t_avg_us.has_value());
}

// A log cut after a row (an excerpt) keeps its rows and says it was cut.
TEST(Perftest, TableWithoutItsClosingRuleIsMarkedTruncated) {
  const TextInput input("cut.txt",
                        "                    RDMA_Write BW Test\n"
                        " Device         : mlx5_0\n"
                        " Number of qps   : 1\n"
                        " Mtu             : 4096[B]\n"
                        "---------------------------------------------------------------\n"
                        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   "
                        "MsgRate[Mpps]\n"
                        " 2          5000             4.96               4.94   \t\t   2.588087\n");
  const PerftestOutput output = parse_perftest(input);
  ASSERT_EQ(output.runs.size(), 1u);
  EXPECT_TRUE(output.runs[0].truncated);
  EXPECT_EQ(output.runs[0].bw_rows.size(), 1u);
}

}  // namespace
}  // namespace railsim::calibrate::parse
