// File: tests/calibrate/parse/nccl_debug_test.cpp
// NCCL_DEBUG=INFO facts read from real logs, each value and line read from the raw text: the
// AWS p4d log (OpenMPI prefixes, NCCL 2.9.9, the AWS Libfabric plugin with GPUDirect RDMA, 2
// hosts, 16 ranks, 8 channels) and nccl-tests#350 (NCCL 2.16.5 over IB with GDRDMA, 2
// channels); a log without INFO lines has none.
#include "tests/calibrate/fixture.hpp"

#include "calibrate/parse/nccl_tests.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace railsim::calibrate::parse {
namespace {

TEST(NcclDebug, TheP4dLogSaysGdrOverTheLibfabricPluginOnTwoHosts) {
  const NcclDebugFacts debug =
      parse_nccl_tests(
          test::fixture_text("nccl-tests_allreduce_a100-p4d-efa_2x8_aws-efa-eks-tagged-debug"))
          .debug;
  // Line 35: "[1,0]<stdout>:NCCL version 2.9.9+cuda11.2"; line 34: rank 0's "Using network".
  EXPECT_EQ(debug.version, (DebugFact<std::string>{"2.9.9+cuda11.2", 35}));
  EXPECT_EQ(debug.network, (DebugFact<std::string>{"AWS Libfabric", 34}));
  EXPECT_EQ(debug.hosts,
            (std::vector<std::string>{"nccl-tests-efa-16-worker-0", "nccl-tests-efa-16-worker-1"}));
  EXPECT_EQ(debug.ranks.value().value, 16);
  // "8 coll channels, 8 p2p channels, 1 p2p channels per peer" on every rank, first at 470.
  EXPECT_EQ(debug.channels, (DebugFact<int>{8, 470}));
  ASSERT_EQ(debug.transports.size(), 2U);
  EXPECT_EQ(debug.transports[0].kind, "NET");
  EXPECT_EQ(debug.transports[0].detail, "AWS Libfabric");
  EXPECT_TRUE(debug.transports[0].gdr);
  EXPECT_EQ(debug.transports[0].line, 151);
  // `grep -c 'via NET/AWS Libfabric/[0-9]*/GDRDMA'` on the log: 64.
  EXPECT_EQ(debug.transports[0].connections, 64);
  EXPECT_EQ(debug.transports[1].kind, "P2P");
  EXPECT_EQ(debug.transports[1].detail, "IPC/read");
  EXPECT_FALSE(debug.transports[1].gdr);
}

TEST(NcclDebug, NcclTests350SaysGdrOverIbWithTwoChannels) {
  const NcclDebugFacts debug =
      parse_nccl_tests(
          test::fixture_text(
              "nccl-tests_gather_a100-pcie-cx6-ib_2x1_debug-interleaved_nccl-tests-issue350"))
          .debug;
  EXPECT_EQ(debug.version, (DebugFact<std::string>{"2.16.5+cuda11.8", 16}));
  EXPECT_EQ(debug.network, (DebugFact<std::string>{"IB", 18}));
  EXPECT_EQ(debug.channels, (DebugFact<int>{2, 75}));
  ASSERT_EQ(debug.transports.size(), 1U);
  EXPECT_EQ(debug.transports[0].detail, "IB");
  EXPECT_TRUE(debug.transports[0].gdr);
}

TEST(NcclDebug, RingLinesGiveTheChannelsWhereNoCountIsPrinted) {
  const TextInput input("log.txt",
                        "h1:1:1 [0] NCCL INFO Channel 00/04 :    0   1\n"
                        "h1:1:1 [0] NCCL INFO Channel 01/04 :    0   1\n"
                        "h1:1:1 [0] NCCL INFO Channel 00/0 : 1[81000] -> 0[81000] [receive] via "
                        "NET/Socket/0\n"
                        "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  "
                        "algbw  busbw  #wrong\n"
                        "#  (B)  (elements)  (us)  (GB/s)  (GB/s)  (us)  (GB/s)  (GB/s)\n"
                        "  8  2  float  sum  -1  10.0  0.00  0.00  0  10.0  0.00  0.00  0\n");
  const NcclDebugFacts debug = parse_nccl_tests(input).debug;
  EXPECT_EQ(debug.channels, (DebugFact<int>{4, 1}));
  ASSERT_EQ(debug.transports.size(), 1U);
  EXPECT_EQ(debug.transports[0].detail, "Socket");
  EXPECT_FALSE(debug.transports[0].gdr);
  EXPECT_EQ(debug.hosts, std::vector<std::string>{"h1"});
}

TEST(NcclDebug, ALogWithoutInfoLinesHasNone) {
  EXPECT_TRUE(
      parse_nccl_tests(test::fixture_text(
                           "nccl-tests_allreduce+sendrecv_h100_2node-1gpn_xxrjun-cluster01-smoke"))
          .debug.empty());
}

}  // namespace
}  // namespace railsim::calibrate::parse
