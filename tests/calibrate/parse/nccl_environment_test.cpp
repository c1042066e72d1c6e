// File: tests/calibrate/parse/nccl_environment_test.cpp
// The NCCL variables a log shows each run was made with: read from three real logs (an mpirun
// line's -x, a pasted block of exports, NCCL's own INFO line), each value and line read from
// the raw text; and in a log written here, how far each form reaches and which wins.
#include "tests/calibrate/fixture.hpp"

#include "calibrate/parse/nccl_tests.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace railsim::calibrate::parse {
namespace {

std::vector<std::string> names(const std::vector<NcclSetting>& settings) {
  std::vector<std::string> out;
  for (const NcclSetting& s : settings) {
    out.push_back(s.name);
  }
  return out;
}

TEST(NcclEnvironment, AnMpirunLinesExportsReachItsRun) {
  // Line 2: "$ mpirun ... -x  NCCL_ALGO=Tree -x NCCL_DEBUG=INFO -x NCCL_IB_GID_INDEX=3 -x
  // NCCL_IB_QPS_PER_CONNECTION=2 -x LD_LIBRARY_PATH -x NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_4,mlx5_5
  // -np 2 ./all_reduce_perf ..."; -x without a value and LD_LIBRARY_PATH are not NCCL's.
  const NcclTestsOutput log = parse_nccl_tests(test::fixture_text(
      "nccl-tests_allreduce-tree_h100-roce_2node-1gpn-4nic_nccl-tests-issue232"));
  ASSERT_EQ(log.runs.size(), 1U);
  EXPECT_EQ(log.runs[0].environment,
            (std::vector<NcclSetting>{{"NCCL_ALGO", "Tree", 2},
                                      {"NCCL_DEBUG", "INFO", 2},
                                      {"NCCL_IB_GID_INDEX", "3", 2},
                                      {"NCCL_IB_HCA", "mlx5_0,mlx5_1,mlx5_4,mlx5_5", 2},
                                      {"NCCL_IB_QPS_PER_CONNECTION", "2", 2}}));
}

TEST(NcclEnvironment, PastedExportsReachTheRunsAfterThem) {
  // Line 2 exports NCCL_SOCKET_IFNAME for all three runs; lines 80-88 export NCCL_ALGO=RING and
  // six more before the third table (its rows from line 96), not the two before it.
  const NcclTestsOutput log = parse_nccl_tests(
      test::fixture_text("nccl-tests_allreduce_h100-ndr-ib_1x8+2x8_srun-l_nccl-tests-issue290"));
  ASSERT_EQ(log.runs.size(), 3U);
  const std::vector<NcclSetting> socket_only = {{"NCCL_SOCKET_IFNAME", "eth0", 2}};
  EXPECT_EQ(log.runs[0].environment, socket_only);
  EXPECT_EQ(log.runs[1].environment, socket_only);
  const std::vector<NcclSetting>& third = log.runs[2].environment;
  EXPECT_EQ(names(third),
            (std::vector<std::string>{"NCCL_ALGO", "NCCL_IB_AR_THRESHOLD", "NCCL_IB_HCA",
                                      "NCCL_IB_PCI_RELAXED_ORDERING", "NCCL_IB_QPS_PER_CONNECTION",
                                      "NCCL_IB_SPLIT_DATA_ON_QPS", "NCCL_IGNORE_CPU_AFFINITY",
                                      "NCCL_SOCKET_IFNAME"}));
  EXPECT_EQ(third[0], (NcclSetting{"NCCL_ALGO", "RING", 80}));
  EXPECT_EQ(third[4], (NcclSetting{"NCCL_IB_QPS_PER_CONNECTION", "2", 84}));
  // The second export of NCCL_SOCKET_IFNAME (line 87) is the one in force.
  EXPECT_EQ(third[7], (NcclSetting{"NCCL_SOCKET_IFNAME", "eth0", 87}));
}

TEST(NcclEnvironment, NcclsOwnInfoLineIsRead) {
  // Line 1 is the command "NCCL_NET_GDR_LEVEL=SYS NCCL_DEBUG=TRACE
  // NCCL_DEBUG_SUBSYS=INIT,GRAPH,NET mpirun ... gather_perf ..."; line 22 is NCCL's "... NCCL
  // INFO NCCL_NET_GDR_LEVEL set by environment to SYS", the stronger word.
  const NcclTestsOutput log = parse_nccl_tests(test::fixture_text(
      "nccl-tests_gather_a100-pcie-cx6-ib_2x1_debug-interleaved_nccl-tests-issue350"));
  ASSERT_EQ(log.runs.size(), 1U);
  EXPECT_EQ(log.runs[0].environment,
            (std::vector<NcclSetting>{{"NCCL_DEBUG", "TRACE", 1},
                                      {"NCCL_DEBUG_SUBSYS", "INIT,GRAPH,NET", 1},
                                      {"NCCL_NET_GDR_LEVEL", "SYS", 22}}));
}

// One run of all_gather_perf on two hosts, one row, starting at "# Collective".
std::string run_text() {
  return "# Collective test starting: all_gather_perf\n"
         "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 1048576 step: 2(factor) warmup iters: 5 "
         "iters: 20 agg iters: 1 validation: 1 graph: 0\n"
         "#\n"
         "# Using devices\n"
         "#  Rank  0 Group  0 Pid 11 on hostA device  0 [0000:1b:00] NVIDIA H100 80GB HBM3\n"
         "#  Rank  1 Group  0 Pid 12 on hostB device  0 [0000:1b:00] NVIDIA H100 80GB HBM3\n"
         "#\n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong "
         "    time   algbw   busbw #wrong\n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)        "
         "     (us)  (GB/s)  (GB/s)       \n"
         "     1048576        131072     float    none      -1   100.00   10.49    5.24      0 "
         "  100.00   10.49    5.24      0\n"
         "# Out of bounds values : 0 OK\n"
         "# Avg bus bandwidth    : 5.24\n";
}

TEST(NcclEnvironment, EachFormReachesAsFarAsTheShellAndNcclTakeIt) {
  const std::string text =
      "export NCCL_PROTO=LL128 NCCL_BUFFSIZE='8388608'\n"  // 1: every later run
      "$ srun --export=ALL,NCCL_ALGO=Ring,NCCL_MIN_NCHANNELS=4 ./all_gather_perf -b 1M\n"  // 2
      + run_text() +                                                                       // 3-14
      "mpirun -genv NCCL_ALGO Tree -x NCCL_PROTO=\"Simple\" ./build/all_gather_perf\n"     // 15
      + run_text() +                                                                       // 16-27
      "hostA:11:11 [0] NCCL INFO NCCL_IB_QPS_PER_CONNECTION set by environment to 4.\n"    // 28
      "hostB:12:12 [0] NCCL INFO NCCL_IB_QPS_PER_CONNECTION set by environment to 4.\n"    // 29
      "hostA:11:11 [0] NCCL INFO NCCL_PROTO set by environment to LL\n"                    // 30
      + run_text();                                                                        // 31-42
  const NcclTestsOutput log = parse_nccl_tests(TextInput("env.txt", text));
  ASSERT_EQ(log.runs.size(), 3U);
  // The first run: the export and its own command's srun --export list.
  EXPECT_EQ(log.runs[0].environment, (std::vector<NcclSetting>{{"NCCL_ALGO", "Ring", 2},
                                                               {"NCCL_BUFFSIZE", "8388608", 1},
                                                               {"NCCL_MIN_NCHANNELS", "4", 2},
                                                               {"NCCL_PROTO", "LL128", 1}}));
  // The second: the first command reaches no further; its own overrides the export.
  EXPECT_EQ(log.runs[1].environment, (std::vector<NcclSetting>{{"NCCL_ALGO", "Tree", 15},
                                                               {"NCCL_BUFFSIZE", "8388608", 1},
                                                               {"NCCL_PROTO", "Simple", 15}}));
  // The third: NCCL's own word, the first rank's line, over the export; an integer's period off.
  EXPECT_EQ(log.runs[2].environment,
            (std::vector<NcclSetting>{{"NCCL_BUFFSIZE", "8388608", 1},
                                      {"NCCL_IB_QPS_PER_CONNECTION", "4", 28},
                                      {"NCCL_PROTO", "LL", 30}}));
}

TEST(NcclEnvironment, ALogThatSetsNothingHasNone) {
  const NcclTestsOutput log =
      parse_nccl_tests(test::fixture_text("nccl-tests_5ops_h100_10node-2gpn_xxrjun-cluster01"));
  ASSERT_FALSE(log.runs.empty());
  for (const NcclTestsRun& run : log.runs) {
    EXPECT_TRUE(run.environment.empty()) << run.program;
  }
}

}  // namespace
}  // namespace railsim::calibrate::parse
