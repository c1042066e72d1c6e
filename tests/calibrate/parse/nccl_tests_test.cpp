// File: tests/calibrate/parse/nccl_tests_test.cpp
// The nccl-tests parser against every real log of tests/data: each run's program, header
// settings, ranks, hosts and GPU models, every cell of every row, and the closing lines equal
// the hand transcription in the .json beside the log.
#include "calibrate/parse/nccl_tests.hpp"

#include "tests/calibrate/fixture.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace railsim::calibrate::parse {
namespace {

using nlohmann::json;

std::optional<std::int64_t> setting(const NcclTestsRun& run, const std::string& name) {
  for (const auto& [key, value] : run.settings) {
    if (key == name) {
      return value;
    }
  }
  return std::nullopt;
}

void expect_result(const NcclTestsResult& result, const json& row, const std::string& prefix) {
  EXPECT_DOUBLE_EQ(result.time_us, row.at(prefix + "_time_us"));
  EXPECT_DOUBLE_EQ(result.algbw_GBps, row.at(prefix + "_algbw_GBps"));
  EXPECT_DOUBLE_EQ(result.busbw_GBps, row.at(prefix + "_busbw_GBps"));
  const json& wrong = row.at(prefix + "_wrong");
  if (wrong.is_null() || wrong == "N/A") {
    EXPECT_FALSE(result.wrong.has_value());
  } else {
    EXPECT_EQ(result.wrong, wrong.get<std::int64_t>());
  }
}

// Every cell of every row of `run` against the transcription's `rows`: a null root for tables
// without one, and the error columns of tables before 2.10 in place of #wrong.
void expect_rows(const NcclTestsRun& run, const json& rows) {
  ASSERT_EQ(run.rows.size(), rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const NcclTestsRow& row = run.rows[r];
    SCOPED_TRACE(row.size_bytes);
    EXPECT_EQ(row.size_bytes, rows[r].at("size_bytes"));
    EXPECT_EQ(row.count, rows[r].at("count"));
    EXPECT_EQ(row.type, rows[r].at("type"));
    EXPECT_EQ(row.redop, rows[r].at("redop"));
    if (rows[r].at("root").is_null()) {
      EXPECT_FALSE(row.root.has_value());
    } else {
      EXPECT_EQ(row.root, rows[r].at("root").get<std::int64_t>());
    }
    for (const auto& [result, prefix] :
         {std::pair{&row.out_of_place, "oop"}, std::pair{&row.in_place, "ip"}}) {
      const std::string error = std::string(prefix) + "_error";
      if (rows[r].contains(error)) {
        EXPECT_DOUBLE_EQ(result->max_error.value(), rows[r].at(error));
        json counted = rows[r];
        counted[std::string(prefix) + "_wrong"] = nullptr;  // old tables count none
        expect_result(*result, counted, prefix);
      } else {
        expect_result(*result, rows[r], prefix);
      }
    }
  }
}

class NcclTestsLog : public ::testing::TestWithParam<const char*> {};

TEST_P(NcclTestsLog, EveryRunMatchesItsTranscription) {
  const NcclTestsOutput output = parse_nccl_tests(test::fixture_text(GetParam()));
  const json expected = test::fixture_json(GetParam());
  const json& tests = expected.at("tests");
  const bool partial = expected.value("partial", false);
  ASSERT_EQ(output.runs.size(), tests.size());
  for (std::size_t t = 0; t < tests.size(); ++t) {
    const NcclTestsRun& run = output.runs[t];
    const json& test = tests[t];
    SCOPED_TRACE(test.at("operation").get<std::string>());
    EXPECT_EQ(run.program, test.at("operation"));
    EXPECT_EQ(run.truncated, partial);
    const json& header = test.at("header");
    if (header.contains("nccl_tests_version")) {
      EXPECT_EQ(run.version, header.at("nccl_tests_version"));
    }
    // The transcription's names for the settings line's "warmup iters", "agg iters".
    for (const auto& [name, key] :
         {std::pair{"nThread", "nThread"}, std::pair{"nGpus", "nGpus"},
          std::pair{"minBytes", "minBytes"}, std::pair{"maxBytes", "maxBytes"},
          std::pair{"step", "step"}, std::pair{"warmup iters", "warmup_iters"},
          std::pair{"iters", "iters"}, std::pair{"agg iters", "agg_iters"},
          std::pair{"validation", "validation"}, std::pair{"graph", "graph"}}) {
      if (header.contains(key)) {
        EXPECT_EQ(setting(run, name), header.at(key).get<std::int64_t>()) << name;
      } else {
        EXPECT_FALSE(setting(run, name).has_value()) << name;
      }
    }
    if (header.contains("step_kind")) {
      EXPECT_EQ(run.step_kind, header.at("step_kind"));
    }
    if (test.contains("ranks")) {
      EXPECT_EQ(run.ranks(), test.at("ranks"));
      std::set<std::string> hosts;
      std::set<std::string> models;
      for (const NcclTestsDevice& device : run.devices) {
        hosts.insert(device.host);
        models.insert(device.model);
      }
      EXPECT_EQ(static_cast<int>(hosts.size()), test.at("hosts"));
      EXPECT_EQ(models, test.at("gpu_models").get<std::set<std::string>>());
    }
    if (test.contains("avg_bus_bandwidth_GBps")) {
      EXPECT_DOUBLE_EQ(run.avg_busbw_GBps.value(), test.at("avg_bus_bandwidth_GBps"));
      EXPECT_EQ(run.out_of_bounds, test.at("out_of_bounds_values").get<std::int64_t>());
    } else {
      EXPECT_FALSE(run.avg_busbw_GBps.has_value());
    }
    expect_rows(run, test.at("rows"));
  }
}

INSTANTIATE_TEST_SUITE_P(
    RealLogs,
    NcclTestsLog,
    ::testing::Values("nccl-tests_5ops_h100_1node-8gpu_xxrjun-cluster01",
                      "nccl-tests_5ops_h100_1node-8gpu_xxrjun-cluster01-node007",
                      "nccl-tests_5ops_h100_1node-4gpu_xxrjun-cluster01",
                      "nccl-tests_5ops_h100_10node-1gpn_xxrjun-cluster01",
                      "nccl-tests_5ops_h100_10node-2gpn_xxrjun-cluster01",
                      "nccl-tests_allreduce+sendrecv_h100_2node-1gpn_xxrjun-cluster01-smoke",
                      "nccl-tests_alltoall+sendrecv_h100_2node-8gpn_xxrjun-cluster01",
                      "nccl-tests_alltoall+sendrecv_h100_2node-8gpn_xxrjun-cluster00-healthy-pair",
                      "nccl-tests_allreduce_gcp-a3mega-h100_2node-8gpn_lessizzmore",
                      "nccl-tests_allreduce-tree_h100-roce_2node-1gpn-4nic_nccl-tests-issue232"));

// The logs transcribed with their launcher's prefix noted ("line_prefixes_seen"): OpenMPI
// --tag-output with NCCL INFO lines throughout and the table of releases before 2.10 (error
// columns, no root), Slurm srun -l, NCCL INFO/TRACE inside the table, and logs pasted as they
// were printed. Every row's every cell, the rank count and the closing lines.
class LauncherLog : public ::testing::TestWithParam<const char*> {};

TEST_P(LauncherLog, EveryRowMatchesItsTranscription) {
  const NcclTestsOutput output = parse_nccl_tests(test::fixture_text(GetParam()));
  const json expected = test::fixture_json(GetParam());
  const json& tests = expected.at("tests");
  ASSERT_EQ(output.runs.size(), tests.size());
  for (std::size_t t = 0; t < tests.size(); ++t) {
    const NcclTestsRun& run = output.runs[t];
    const json& test = tests[t];
    SCOPED_TRACE(t);
    EXPECT_EQ(run.truncated, expected.value("partial", false));
    EXPECT_EQ(run.ranks(), test.at("nranks"));
    const json& average = test.at("avg_bus_bandwidth_GBps");  // null when the log ends before it
    EXPECT_DOUBLE_EQ(run.avg_busbw_GBps.value_or(-1.0),
                     average.is_null() ? -1.0 : average.get<double>());
    expect_rows(run, test.at("rows"));
  }
}

INSTANTIATE_TEST_SUITE_P(
    RealLogs,
    LauncherLog,
    ::testing::Values(
        "nccl-tests_allreduce_a100-p4d-efa_2x8_aws-efa-eks-tagged-debug",
        "nccl-tests_allreduce_h100-ndr-ib_1x8+2x8_srun-l_nccl-tests-issue290",
        "nccl-tests_gather_a100-pcie-cx6-ib_2x1_debug-interleaved_nccl-tests-issue350",
        "nccl-tests_allgather_b200-gcp-a4-roce_2x8_dranet",
        "nccl-tests_alltoall+sendrecv_h100_2x1_xxrjun-2511-pair-001_005",
        "nccl-tests_alltoall+sendrecv_h100_2x4_xxrjun-2511-pair-002_005"));

// From the raw text of the 1-node 8-GPU log: the op names `railsim parse` prints, a rank line's
// fields, and where the first row stands.
TEST(NcclTests, OpsRankLinesAndRowLines) {
  const NcclTestsOutput output =
      parse_nccl_tests(test::fixture_text("nccl-tests_5ops_h100_1node-8gpu_xxrjun-cluster01"));
  ASSERT_EQ(output.runs.size(), 5u);
  EXPECT_EQ(output.runs[0].op, "all_reduce");
  EXPECT_EQ(output.runs[3].op, "alltoall");
  const NcclTestsDevice& rank7 = output.runs[0].devices.at(7);
  EXPECT_EQ(rank7.rank, 7);
  EXPECT_EQ(rank7.pid, 4180135);
  EXPECT_EQ(rank7.device, 7);
  EXPECT_EQ(rank7.bus_id, "0000:df:00");
  EXPECT_EQ(output.runs[0].rows.front().line, 20);
  EXPECT_EQ(output.runs[0].line, 1);
}

// The issue-232 excerpt has no "Collective test starting" line: the program comes from the
// mpirun command above the table.
TEST(NcclTests, ProgramOfAnExcerptComesFromItsCommandLine) {
  const NcclTestsOutput output = parse_nccl_tests(test::fixture_text(
      "nccl-tests_allreduce-tree_h100-roce_2node-1gpn-4nic_nccl-tests-issue232"));
  ASSERT_EQ(output.runs.size(), 1u);
  EXPECT_EQ(output.runs[0].op, "all_reduce");
  EXPECT_EQ(output.runs[0].ranks(), 0);
  EXPECT_TRUE(output.runs[0].truncated);
}

// NCCL_DEBUG=INFO interleaves its lines with the table (they start "host:pid:tid"), WARN lines
// too, and mpirun may print anything; none of it is a row.
TEST(NcclTests, NcclInfoAndWarnLinesBetweenRowsAreSkipped) {
  const TextInput input(
      "info.txt",
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 "
      "agg iters: 1 validation: 1 graph: 0\n"
      "#\n"
      "# Using devices\n"
      "#  Rank  0 Group  0 Pid   6899 on node-a device  0 [0x04] NVIDIA H100 80GB HBM3\n"
      "#  Rank  1 Group  0 Pid   6900 on node-b device  0 [0x04] NVIDIA H100 80GB HBM3\n"
      "node-a:6899:6899 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
      "10-0-0-2:6900:6920 [0] NCCL INFO Channel 00/02 :    0   1\n"
      "#\n"
      "#                                                              out-of-place        "
      "               in-place          \n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong "
      "    time   algbw   busbw  #wrong \n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)         "
      "    (us)  (GB/s)  (GB/s)         \n"
      "           8             2     float     sum      -1    135.8    0.00    0.00      0    "
      "123.5    0.00    0.00      0\n"
      "node-a:6899:6925 [0] NCCL WARN NET/IB : Got async event : port error\n"
      "Warning: Permanently added 'node-b' to the list of known hosts.\n"
      "          16             4     float     sum      -1    123.2    0.00    0.00      0    "
      "122.3    0.00    0.00    N/A\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 0 \n");
  const NcclTestsOutput output = parse_nccl_tests(input);
  ASSERT_EQ(output.runs.size(), 1u);
  const NcclTestsRun& run = output.runs[0];
  EXPECT_EQ(run.ranks(), 2);
  EXPECT_EQ(run.devices[1].host, "node-b");
  EXPECT_EQ(run.devices[1].bus_id, "0x04");
  ASSERT_EQ(run.rows.size(), 2u);
  EXPECT_EQ(run.rows[1].size_bytes, 16);
  EXPECT_DOUBLE_EQ(run.rows[1].in_place.time_us, 122.3);
  EXPECT_FALSE(run.rows[1].in_place.wrong.has_value());
  EXPECT_FALSE(run.truncated);
  EXPECT_DOUBLE_EQ(run.avg_busbw_GBps.value(), 0.0);
}

}  // namespace
}  // namespace railsim::calibrate::parse
