// File: tests/tools/probes/verbs_options_test.cpp
// railsim-probe-verbs' arguments: perftest's defaults, -a, and the documented error for each
// kind of bad argument (before any device is opened).
#include "tools/probes/verbs_options.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace railsim::tools::probes {
namespace {

VerbsOptions parse(const std::vector<std::string>& args) {
  std::ostringstream out;
  const std::optional<VerbsOptions> options = parse_verbs_options(args, out);
  EXPECT_TRUE(options.has_value());
  EXPECT_EQ(out.str(), "");
  return options.value_or(VerbsOptions{});
}

std::string error_of(const std::vector<std::string>& args) {
  std::ostringstream out;
  try {
    parse_verbs_options(args, out);
  } catch (const std::exception& error) {
    return error.what();
  }
  return "no error";
}

TEST(VerbsOptions, ServerWithPerftestDefaults) {
  const VerbsOptions o = parse({"--server"});
  EXPECT_TRUE(o.server);
  EXPECT_EQ(o.port, 18515);
  EXPECT_EQ(o.ib_port, 1);
  EXPECT_EQ(o.gid_index, -1);
  EXPECT_EQ(o.test, VerbsTest::kBoth);
  EXPECT_EQ(o.bw_sizes.sizes(), (std::vector<std::int64_t>{65536}));
  EXPECT_EQ(o.lat_sizes.sizes(), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(o.bw_iterations, 5000);
  EXPECT_EQ(o.lat_iterations, 1000);
  EXPECT_EQ(o.tx_depth, 128);
  EXPECT_EQ(o.signal_every, 100);
  EXPECT_EQ(o.format, VerbsFormat::kJson);
}

TEST(VerbsOptions, ClientWithEveryOption) {
  const VerbsOptions o = parse({"--client",   "node1",    "--port",
                                "20000",      "--device", "mlx5_3",
                                "--ib-port",  "2",        "--gid-index",
                                "3",          "-b",       "4K",
                                "-e",         "1M",       "-f",
                                "4",          "--iters",  "200",
                                "--tx-depth", "64",       "--cq-mod",
                                "16",         "--test",   "write_bw",
                                "--format",   "perftest", "--report_gbits",
                                "--timeout",  "10"});
  EXPECT_FALSE(o.server);
  EXPECT_EQ(o.client_host, "node1");
  EXPECT_EQ(o.port, 20000);
  EXPECT_EQ(o.device, "mlx5_3");
  EXPECT_EQ(o.ib_port, 2);
  EXPECT_EQ(o.gid_index, 3);
  EXPECT_EQ(o.bw_sizes.sizes(), (std::vector<std::int64_t>{4096, 16384, 65536, 262144, 1048576}));
  EXPECT_EQ(o.bw_iterations, 200);
  EXPECT_EQ(o.lat_iterations, 200);
  EXPECT_EQ(o.tx_depth, 64);
  EXPECT_EQ(o.signal_every, 16);
  EXPECT_EQ(o.test, VerbsTest::kWriteBw);
  EXPECT_FALSE(o.measures_lat());
  EXPECT_EQ(o.format, VerbsFormat::kPerftest);
  EXPECT_TRUE(o.report_gbits);
  EXPECT_EQ(o.timeout, std::chrono::seconds(10));
  EXPECT_EQ(o.max_message_bytes(), 1048576);
}

TEST(VerbsOptions, AllSizesAreTwoBytesToEightMebibytes) {
  const VerbsOptions o = parse({"--server", "-a"});
  const std::vector<std::int64_t> sizes = o.bw_sizes.sizes();
  ASSERT_EQ(sizes.size(), 23U);
  EXPECT_EQ(sizes.front(), 2);
  EXPECT_EQ(sizes.back(), 8 * 1024 * 1024);
  EXPECT_EQ(o.lat_sizes.sizes(), sizes);
}

TEST(VerbsOptions, SmallTxDepthLowersTheDefaultSignalInterval) {
  EXPECT_EQ(parse({"--server", "--tx-depth", "16"}).signal_every, 16);
}

TEST(VerbsOptions, HelpPrintsUsageAndRunsNothing) {
  std::ostringstream out;
  EXPECT_FALSE(parse_verbs_options({"--help"}, out).has_value());
  EXPECT_NE(out.str().find("usage: railsim-probe-verbs --server"), std::string::npos);
  EXPECT_NE(out.str().find("--gid-index"), std::string::npos);
}

TEST(VerbsOptions, BadArgumentsSayWhatWasExpected) {
  EXPECT_EQ(error_of({}), "expected exactly one of --server and --client HOST");
  EXPECT_EQ(error_of({"--server", "--client", "x"}),
            "expected exactly one of --server and --client HOST");
  EXPECT_EQ(error_of({"--server", "--port", "70000"}),
            "--port: expected an integer from 1 to 65535, got 70000");
  EXPECT_EQ(error_of({"--server", "--test", "read_bw"}),
            "--test: expected one of write_bw, write_lat, both, got 'read_bw'");
  EXPECT_EQ(error_of({"--server", "--format", "csv"}),
            "--format: expected one of json, perftest, got 'csv'");
  EXPECT_EQ(error_of({"--server", "--iters", "0"}),
            "--iters: expected an integer from 1 to 1000000000, got 0");
  EXPECT_EQ(error_of({"--server", "--tx-depth", "32", "--cq-mod", "64"}),
            "--cq-mod: expected an integer from 1 to 32, got 64");
  EXPECT_EQ(error_of({"--server", "-a", "-b", "8"}), "-a: give either -a or -b/-e, not both");
  EXPECT_EQ(error_of({"--server", "-f", "4"}), "-f: a step factor needs -b and -e");
  EXPECT_EQ(error_of({"--server", "-e", "2G"}),
            "-e: expected a size from 1 to 1073741824 bytes, got 2G");
  EXPECT_EQ(error_of({"--server", "--device", ""}),
            "--device: expected a device name such as mlx5_0, got ''");
}

TEST(VerbsOptions, BoostErrorsNameTheOption) {
  EXPECT_NE(error_of({"--server", "--frobnicate"}).find("frobnicate"), std::string::npos);
  EXPECT_NE(error_of({"--server", "--port", "abc"}).find("port"), std::string::npos);
  EXPECT_NE(error_of({"--client"}).find("client"), std::string::npos);
}

TEST(VerbsOptions, SettingsWordDiffersWhenTheSidesDisagree) {
  const VerbsOptions a = parse({"--server", "-a"});
  const VerbsOptions b = parse({"--client", "h", "-a"});
  const VerbsOptions c = parse({"--client", "h", "-a", "--iters", "10"});
  EXPECT_EQ(a.settings_word(), b.settings_word());
  EXPECT_NE(a.settings_word(), c.settings_word());
  EXPECT_EQ(a.settings_word().find(' '), std::string::npos);
}

}  // namespace
}  // namespace railsim::tools::probes
