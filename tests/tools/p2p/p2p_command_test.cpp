// File: tests/tools/p2p/p2p_command_test.cpp
// `railsim p2p` against real perftest logs (tests/data), with the presets' documented defaults:
// ib_write_bw's 8 MiB average within 3% of the measured large-message average, NDR on dgx-h100
// and HDR on dgx-a100; ib_write_lat's 2 B latency and its growth with size on dgx-a100.
#include "calibrate/parse/perftest.hpp"
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

// The perftest rows printed, lines of `columns` numbers: for write_bw bytes, iterations, BW
// peak, BW average, message rate; for write_lat bytes, iterations, t_min, t_max, t_typical,
// t_avg, t_stdev, 99% and 99.9% percentiles.
std::vector<std::vector<double>> printed_rows(const std::vector<std::string>& args,
                                              std::size_t columns = 5) {
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
    if (row.size() == columns && fields.eof()) {
      rows.push_back(row);
    }
  }
  return rows;
}

// `field` of the `bytes` row of perftest test `test` ("RDMA_Write BW Test") in a fixture.
double fixture_value(const std::string& stem,
                     const std::string& test,
                     std::int64_t bytes,
                     const std::string& field) {
  std::ifstream in(std::string(RAILSIM_TEST_DATA_DIR) + "/" + stem + ".json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  for (const nlohmann::json& block : doc["tests"]) {
    if (block["test"] != test) {
      continue;
    }
    for (const nlohmann::json& row : block["rows"]) {
      if (row["bytes"] == bytes) {
        return row[field].get<double>();
      }
    }
  }
  ADD_FAILURE() << "no " << test << " row of " << bytes << " bytes in " << stem;
  return 0.0;
}

double measured_write_bw(const std::string& stem, std::int64_t bytes) {
  return fixture_value(stem, "RDMA_Write BW Test", bytes, "bw_average");
}

constexpr const char* kCx7NdrBackToBack = "perftest_write+read+send-bw+send-lat_cx7-ndr-b2b_csegpu";
constexpr const char* kCx6Hdr = "perftest_write-bw-sweep+write-lat-sweep_cx6-hdr_2node_node0-node1";

TEST(P2pCommand, DgxH100PredictsTheNdrWriteBandwidthWithin3Percent) {
  // Measured: CX-7 NDR back to back, 65536 B messages (the log's only size, already on the
  // large-message plateau), 392.34 Gb/sec.
  const double measured = measured_write_bw(kCx7NdrBackToBack, 65536);
  const auto rows = printed_rows({"--system", "dgx-h100", "-s", "8M", "--report_gbits"});
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0][0], 8388608.0);
  EXPECT_NEAR(rows[0][3], measured, 0.03 * measured);
}

TEST(P2pCommand, DgxA100PredictsTheHdrWriteBandwidthWithin3Percent) {
  // Measured: CX-6 HDR between two A100 hosts, 8 MiB messages, 23317.65 MB/sec (2^20 B).
  const double measured = measured_write_bw(kCx6Hdr, 8388608);
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
  EXPECT_THROW(run_p2p({"--system", "dgx-h100", "--test", "read_lat"}, out), sim::InputError);
  EXPECT_THROW(run_p2p({"--system", "dgx-h100", "--nic", "first"}, out), sim::InputError);
  EXPECT_THROW(run_p2p({"--system", "dgx-h100", "--nic", "-1"}, out), sim::InputError);
  EXPECT_THROW(run_p2p({"--system", "dgx-h100", "--nic", "8"}, out), sim::InputError);
}

TEST(P2pCommand, EveryPortInTurnFindsTheOneTrainedDown) {
  // --nic all streams 1 MiB host to host over each compute NIC of two dgx-h100 nodes, as a loop
  // over ib_write_bw -d: each at its PCIe Gen5 x16 path, 63.015 x 0.78 x 8 = 393.2 Gb/sec, but
  // mlx5_4, whose cable to its leaf trained at half rate: 400 x 4096 / 4122 (IB's headers at MTU
  // 4096) / 2 = 198.7 Gb/sec.
  const std::string path = ::testing::TempDir() + "railsim_p2p_slow_port.json";
  std::ofstream(path) << R"({"system": {"node": "dgx-h100", "nodes": 2,
      "faults": [{"link": "n0.mlx5_4>leaf2", "rate_scale": 0.5}]}})";
  std::ostringstream out;
  ASSERT_EQ(run_p2p({"--system", path, "--nic", "all", "-s", "1M", "--format", "json"}, out), 0);
  const nlohmann::json ports = nlohmann::json::parse(out.str());
  const std::vector<std::string> devices = {"mlx5_0", "mlx5_3", "mlx5_4",  "mlx5_5",
                                            "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"};
  ASSERT_EQ(ports.size(), devices.size());
  for (std::size_t k = 0; k < devices.size(); ++k) {
    EXPECT_EQ(ports[k]["device"], devices[k]);
    const double expected =
        devices[k] == "mlx5_4" ? 400.0 * 4096.0 / 4122.0 / 2.0 : 63.0154 * 0.78 * 8;
    EXPECT_NEAR(ports[k]["rows"][0]["bw_avg_Gbps"].get<double>(), expected, 0.1) << devices[k];
  }
}

// Columns of a write_lat row.
constexpr std::size_t kLatColumns = 9;
constexpr std::size_t kTypical = 4;

TEST(P2pCommand, WriteLatDefaultsTo2BytesAnd1000IterationsAndOneValueForEveryStatistic) {
  // perftest's latency defaults; a deterministic model has no spread: t_min = t_max = t_typical =
  // t_avg = both percentiles, t_stdev = 0.
  const auto rows = printed_rows({"--system", "dgx-a100", "--test", "write_lat"}, kLatColumns);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0][0], 2.0);
  EXPECT_EQ(rows[0][1], 1000.0);
  for (const std::size_t c : {2U, 3U, 5U, 7U, 8U}) {
    EXPECT_EQ(rows[0][c], rows[0][kTypical]) << "column " << c;
  }
  EXPECT_EQ(rows[0][6], 0.0);
  const auto sweep =
      printed_rows({"--system", "dgx-a100", "--test", "write_lat", "-a", "-n", "50"}, kLatColumns);
  ASSERT_EQ(sweep.size(), 23U);
  EXPECT_EQ(sweep.back()[0], 8388608.0);
  EXPECT_EQ(sweep.back()[1], 50.0);
}

TEST(P2pCommand, WriteLatReproducesTheCalibrationPointBackToBack) {
  // The NIC processing latency was fitted to this point (models/hardware/node_spec.hpp), so this
  // checks the sum, not the model: CX-7 NDR back to back, ib_send_lat 2 B, 1.27 us typical. A
  // leaf of no latency and two 2.5 ns cables stand in for the 1 m DAC: 2 x 632 + 5 + 0.04 ns
  // (2 B at 49.15 GB/s) = 1269.04 ns.
  const std::string path = ::testing::TempDir() + "railsim_p2p_back_to_back.json";
  std::ofstream(path) << R"({"system": {"node": "dgx-h100", "nodes": 2,
      "fabric": {"switch_latency": "0ns", "cable_latency": "2.5ns"}}})";
  const auto rows = printed_rows({"--system", path, "--test", "write_lat"}, kLatColumns);
  ASSERT_EQ(rows.size(), 1U);
  const double measured_us =
      fixture_value(kCx7NdrBackToBack, "Send Latency Test", 2, "t_typical_us");
  EXPECT_NEAR(rows[0][kTypical], measured_us, 0.005);
}

TEST(P2pCommand, DgxA100WriteLatAt2BytesFallsShortOfTheHdrMeasurementBy23Percent) {
  // Model, by hand: the NIC at each end, 2 x 632 ns; through one leaf, cable 25 + switch 130 +
  // cable 25 ns; 2 B at the PCIe Gen4 x16 bottleneck, 24.576 GB/s, 0.08 ns: 1444.08 ns, so 1.44.
  // Measured (CX-6 HDR, two A100 hosts, ib_write_lat): 1.87 us typical. The model is 23% low,
  // and the test holds it within 25%. The one NIC latency was fitted to a newer NIC (CX-7, PCIe
  // Gen5) on a faster host with ib_send_lat; the CX-6 hosts ran their cores below full clock
  // (the log's "CPU Frequency is not max" warnings), which slows perftest's posting and polling,
  // and their subnet's path (LIDs 0x40 -> 0x6e) may cross more than the one leaf modelled.
  // docs/hardware.md keeps these figures.
  const auto rows = printed_rows({"--system", "dgx-a100", "--test", "write_lat"}, kLatColumns);
  ASSERT_EQ(rows.size(), 1U);
  const double predicted = rows[0][kTypical];
  EXPECT_NEAR(predicted, 1.44408, 0.006);
  const double measured_us = fixture_value(kCx6Hdr, "RDMA_Write Latency Test", 2, "t_typical_us");
  EXPECT_LT(predicted, measured_us);
  EXPECT_NEAR(predicted, measured_us, 0.25 * measured_us);
}

TEST(P2pCommand, WriteLatGrowsByTheMessageOverTheBottleneckRate) {
  // Closed form: latency(8 MiB) - latency(2 B) = (8388608 - 2) B / bottleneck + the sender's
  // DMA read of a payload above perftest's 220 B inline limit (0.91 us, node_spec.hpp). On
  // dgx-a100 the bottleneck is PCIe Gen4 x16, 16 x 16 GT/s x 128/130 / 8 x 0.78 = 24.576 GB/s,
  // below the HDR port's 200 Gb/s x 4096/4122 = 24.842 GB/s: 341.33 + 0.91 = 342.24 us (each
  // printed value rounds by 0.005).
  const auto rows =
      printed_rows({"--system", "dgx-a100", "--test", "write_lat", "-a"}, kLatColumns);
  ASSERT_EQ(rows.size(), 23U);
  const double bottleneck = 16 * 16e9 * 128.0 / 130.0 / 8.0 * 0.78;
  const double growth = rows.back()[kTypical] - rows.front()[kTypical];
  EXPECT_NEAR(growth, (8388608.0 - 2.0) / bottleneck * 1e6 + 0.91, 0.01);
  // Measured on the CX-6 HDR hosts: 345.55 - 1.87 = 343.68 us, 0.4% above the model.
  const double measured_growth =
      fixture_value(kCx6Hdr, "RDMA_Write Latency Test", 8388608, "t_typical_us") -
      fixture_value(kCx6Hdr, "RDMA_Write Latency Test", 2, "t_typical_us");
  EXPECT_NEAR(growth, measured_growth, 0.03 * measured_growth);
}

TEST(P2pCommand, WriteLatJsonRowsKeepLatUs) {
  std::ostringstream out;
  ASSERT_EQ(run_p2p({"--system", "dgx-a100", "--test", "write_lat", "--format", "json"}, out), 0);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["test"], "write_lat");
  ASSERT_EQ(doc["rows"].size(), 1U);
  const nlohmann::json& row = doc["rows"][0];
  EXPECT_EQ(row["size_bytes"], 2);
  EXPECT_EQ(row["iterations"], 1000);
  for (const char* key : {"t_min_us", "t_max_us", "t_avg_us", "p99_us", "p99_9_us", "lat_us"}) {
    EXPECT_EQ(row[key], row["t_typical_us"]) << key;
  }
  EXPECT_EQ(row["t_stdev_us"], 0.0);
  EXPECT_NEAR(row["lat_us"].get<double>(), 1.44408, 1e-3);
}

// What p2p prints, perftest's parser reads back (railsim parse, check and calibrate take it as
// they take ib_write_bw's own output): the device, and the rate the model printed.
TEST(P2pCommand, OutputParsesBackAsPerftest) {
  std::ostringstream out;
  ASSERT_EQ(run_p2p({"--system", "dgx-h100", "--from", "0:3", "--to", "1:3", "-s", "8M"}, out), 0);
  const calibrate::parse::PerftestOutput parsed =
      calibrate::parse::parse_perftest(calibrate::parse::TextInput("p2p.txt", out.str()));
  ASSERT_EQ(parsed.runs.size(), 1U);
  EXPECT_EQ(parsed.runs[0].device, "mlx5_5");  // GPU3's NIC on a DGX H100
  ASSERT_EQ(parsed.runs[0].bw_rows.size(), 1U);
  const std::vector<std::vector<double>> rows =
      printed_rows({"--system", "dgx-h100", "--from", "0:3", "--to", "1:3", "-s", "8M"});
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_DOUBLE_EQ(parsed.runs[0].bw_rows[0].bw_average, rows[0][3]);
}

}  // namespace
}  // namespace railsim::tools
