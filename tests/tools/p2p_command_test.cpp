// File: tests/tools/p2p_command_test.cpp
// `railsim p2p` against real ib_write_bw logs (tests/data), with the presets' documented
// defaults and no tuning to these logs: the printed 8 MiB average must be within 3% of the
// measured large-message average, NDR on dgx-h100 and HDR on dgx-a100.
#include "sim/input_error.hpp"
#include "tools/command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

// The perftest rows printed: bytes, iterations, BW peak, BW average, message rate.
std::vector<std::vector<double>> printed_rows(const std::vector<std::string>& args) {
  std::ostringstream out;
  EXPECT_EQ(run_p2p(args, out), 0);
  std::istringstream text(out.str());
  std::string line;
  std::vector<std::vector<double>> rows;
  while (std::getline(text, line)) {
    std::istringstream fields(line);
    std::vector<double> row;
    double value = 0.0;
    while (fields >> value) {
      row.push_back(value);
    }
    if (row.size() == 5 && fields.eof()) {
      rows.push_back(row);
    }
  }
  return rows;
}

double measured_write_bw(const std::string& stem, std::int64_t bytes) {
  std::ifstream in(std::string(RAILSIM_TEST_DATA_DIR) + "/" + stem + ".json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  for (const nlohmann::json& test : doc["tests"]) {
    if (test["test"] != "RDMA_Write BW Test") {
      continue;
    }
    for (const nlohmann::json& row : test["rows"]) {
      if (row["bytes"] == bytes) {
        return row["bw_average"].get<double>();
      }
    }
  }
  ADD_FAILURE() << "no write_bw row of " << bytes << " bytes in " << stem;
  return 0.0;
}

TEST(P2pCommand, DgxH100PredictsTheNdrWriteBandwidthWithin3Percent) {
  // Measured: CX-7 NDR back to back, 65536 B messages (the log's only size, already on the
  // large-message plateau), 392.34 Gb/sec.
  const double measured =
      measured_write_bw("perftest_write+read+send-bw+send-lat_cx7-ndr-b2b_csegpu", 65536);
  const auto rows = printed_rows({"--system", "dgx-h100", "-s", "8M", "--report_gbits"});
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0][0], 8388608.0);
  EXPECT_NEAR(rows[0][3], measured, 0.03 * measured);
}

TEST(P2pCommand, DgxA100PredictsTheHdrWriteBandwidthWithin3Percent) {
  // Measured: CX-6 HDR between two A100 hosts, 8 MiB messages, 23317.65 MB/sec (2^20 B).
  const double measured = measured_write_bw(
      "perftest_write-bw-sweep+write-lat-sweep_cx6-hdr_2node_node0-node1", 8388608);
  const auto rows = printed_rows({"--system", "dgx-a100", "-s", "8M"});
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_NEAR(rows[0][3], measured, 0.03 * measured);
}

TEST(P2pCommand, SweepDoublesFrom2BytesTo8MiBAndSmallMessagesAreRateBound) {
  // -a: 2, 4, ..., 2^23 bytes: 23 rows. At 2 B the queue pair's message rate (2.59e6/s, the
  // NIC default) bounds the stream: 2 x 2.59e6 B/s / 2^20 = 4.94 MB/sec.
  const auto rows = printed_rows({"--system", "dgx-a100", "-a"});
  ASSERT_EQ(rows.size(), 23U);
  EXPECT_EQ(rows.front()[0], 2.0);
  EXPECT_EQ(rows.back()[0], 8388608.0);
  EXPECT_NEAR(rows.front()[3], 2 * 2.59e6 / (1 << 20), 0.01);
}

TEST(P2pCommand, GpuBuffersGoThroughTheGpusNearestNic) {
  // GPU 3 of a dgx-h100 reaches its NIC (mlx5_5) at PIX, so GPUDirect RDMA holds the stream at
  // the PCIe Gen5 x16 rate, 63.015 x 0.78 = 49.15 GB/s = 393.2 Gb/sec.
  const auto rows = printed_rows(
      {"--system", "dgx-h100", "--from", "0:3", "--to", "1:3", "-s", "1M", "--report_gbits"});
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_NEAR(rows[0][2], 63.0154 * 0.78 * 8, 0.1);
}

TEST(P2pCommand, BadArgumentsAreInputErrors) {
  std::ostringstream out;
  EXPECT_THROW(run_p2p({"--system", "dgx-h100", "--from", "x"}, out), sim::InputError);
  EXPECT_THROW(run_p2p({"--system", "dgx-h100", "--to", "5"}, out), sim::InputError);
  EXPECT_THROW(run_p2p({"--system", "dgx-h100", "--from", "0:9"}, out), sim::InputError);
  EXPECT_THROW(run_p2p({"--system", "dgx-h100", "-s", "0.3K"}, out), sim::InputError);
  EXPECT_THROW(run_p2p({"--system", "dgx-h100", "--test", "read_bw"}, out), sim::InputError);
}

}  // namespace
}  // namespace railsim::tools
