// File: tests/calibrate/check/nccl_setup_check_test.cpp
// The transport NCCL reported, judged against the design (dgx-h100: every GPU has a
// GDR-capable CX-7 behind its own PCIe switch, PIX, within the GDR level PXB): TCP sockets
// across nodes and inter-node connections without GDRDMA fail citing the INFO line; GDRDMA over
// IB passes; a log without INFO lines is skipped with how to get them. NCCL_NET_GDR_LEVEL, in any
// of NCCL's spellings, decides whether GDR is expected. Fewer channels than NCCL's search finds
// on the design fail, within the bounds the job set; a real log's count on its own hardware
// passes.
#include "calibrate/check/nccl_setup_check.hpp"

#include "tests/calibrate/fixture.hpp"
#include "tests/input_error_text.hpp"

#include "calibrate/check/nccl_run_check.hpp"
#include "calibrate/parse/nccl_tests.hpp"
#include "models/scenario/system_file.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace railsim::calibrate::check {
namespace {

using parse::DebugFact;
using parse::NcclEvidence;
using parse::NcclTransport;

NcclEvidence job(const std::string& network, bool gdr) {
  NcclEvidence run;
  run.label = "job";
  run.log.file = "log.txt";
  run.nodes = {"a", "b"};
  run.gpus = {0, 1, 2, 3, 4, 5, 6, 7};
  run.log.output.debug.network = DebugFact<std::string>{network, 12};
  run.log.output.debug.transports = {NcclTransport{"NET", network, gdr, 32, 40},
                                     NcclTransport{"P2P", "IPC/read", false, 64, 41}};
  run.log.output.debug.channels = DebugFact<int>{32, 30};
  return run;
}

std::vector<Finding> findings(const NcclEvidence& run) {
  std::vector<Finding> out;
  check_nccl_setup(run, models::scenario::system_from_argument("dgx-h100").system, out);
  EXPECT_EQ(out.size(), 3U);
  return out;
}

TEST(NcclSetupCheck, GdrOverIbPassesCitingTheLines) {
  const std::vector<Finding> out = findings(job("IB", true));
  EXPECT_EQ(out[0].check, "network");
  EXPECT_EQ(out[0].verdict, Verdict::kPass);
  EXPECT_EQ(out[0].evidence, "log.txt:12");
  EXPECT_EQ(out[1].check, "GPUDirect RDMA");
  EXPECT_EQ(out[1].verdict, Verdict::kPass);
  EXPECT_EQ(out[1].evidence, "log.txt:40");
  EXPECT_EQ(out[1].measured, "via NET/IB/GDRDMA (32 connections)");
}

TEST(NcclSetupCheck, SocketsAcrossNodesAndNoGdrFail) {
  const std::vector<Finding> out = findings(job("Socket", false));
  EXPECT_EQ(out[0].verdict, Verdict::kFail);
  EXPECT_EQ(out[0].measured, "Using network Socket");
  EXPECT_EQ(out[1].verdict, Verdict::kFail);
  EXPECT_EQ(out[1].severity, Severity::kMajor);
  EXPECT_EQ(out[1].measured, "via NET/Socket without GDRDMA (32 connections)");
}

TEST(NcclSetupCheck, NoGdrWhereTheDesignHasNoneEitherPasses) {
  NcclEvidence run = job("IB", false);
  models::SystemSpec design = models::scenario::system_from_argument("dgx-h100").system;
  design.gdr_off_nodes = {0, 1};
  std::vector<Finding> out;
  check_nccl_setup(run, design, out);
  ASSERT_EQ(out.size(), 3U);
  EXPECT_EQ(out[1].verdict, Verdict::kPass);
}

TEST(NcclSetupCheck, NcclsGdrLevelNamesDecideWhetherGdrIsExpected) {
  // LOC (or its legacy 0) turns GPUDirect RDMA off, so a run without it is as the job asked; PXB
  // (legacy 2) covers dgx-h100's PIX NICs, so the same run is missing it.
  for (const auto& [value, expected] : {std::pair{"LOC", Verdict::kPass},
                                        {"0", Verdict::kPass},
                                        {"2", Verdict::kFail},
                                        {"SYS", Verdict::kFail}}) {
    NcclEvidence run = job("IB", false);
    run.env = {{"NCCL_NET_GDR_LEVEL", value}};
    EXPECT_EQ(findings(run)[1].verdict, expected) << value;
  }
  NcclEvidence run = job("IB", false);
  run.env = {{"NCCL_NET_GDR_LEVEL", "NEAR"}};
  std::vector<Finding> out;
  EXPECT_EQ(railsim::test::input_error_text([&] {
              check_nccl_setup(run, models::scenario::system_from_argument("dgx-h100").system, out);
            }),
            "log.txt: NCCL_NET_GDR_LEVEL=NEAR: expected LOC, PIX, PXB, PHB, NODE or SYS (or 0-5)");
}

TEST(NcclSetupCheck, TheLogsOwnGdrLevelComesBeforeTheManifests) {
  // The manifest says SYS, but NCCL's INFO line in the log says LOC: GPUDirect RDMA was off as
  // the job asked.
  NcclEvidence run = job("IB", false);
  run.env = {{"NCCL_NET_GDR_LEVEL", "SYS"}};
  EXPECT_EQ(findings(run)[1].verdict, Verdict::kFail);
  run.log.output.runs.emplace_back().environment = {{"NCCL_NET_GDR_LEVEL", "LOC", 7}};
  EXPECT_EQ(findings(run)[1].verdict, Verdict::kPass);
}

TEST(NcclSetupCheck, FewerChannelsThanTheDesignFailCitingTheLine) {
  // A channel sends its rings through one NIC, and NCCL's search gives each of dgx-h100's eight
  // NICs at least one channel on a 2 x 8 job: one channel leaves seven NICs idle.
  NcclEvidence run = job("IB", true);
  run.log.output.debug.channels = DebugFact<int>{1, 30};
  const Finding f = findings(run)[2];
  EXPECT_EQ(f.check, "channels");
  EXPECT_EQ(f.verdict, Verdict::kFail);
  EXPECT_EQ(f.severity, Severity::kMinor);
  EXPECT_EQ(f.evidence, "log.txt:30");
  EXPECT_EQ(f.measured, "1 channel");
  EXPECT_NE(f.next.find("NCCL_IB_HCA"), std::string::npos) << f.next;
  // The same count as the job asked for it, in the spelling of NCCL 2.17 and later.
  run.env = {{"NCCL_MAX_CTAS", "1"}};
  const Finding capped = findings(run)[2];
  EXPECT_EQ(capped.verdict, Verdict::kPass);
  EXPECT_NE(capped.expected.find("at least 1 channel,"), std::string::npos) << capped.expected;
  EXPECT_NE(capped.expected.find("NCCL_MAX_NCHANNELS 1"), std::string::npos) << capped.expected;
}

TEST(NcclSetupCheck, ARealLogsChannelsOnItsOwnHardwarePass) {
  // nccl-tests issue 350: 2 x 1 A100 PCIe, one 200G ConnectX-6 each; NCCL printed "2 coll
  // channels". By hand, NCCL's search on SM80 fits one channel of 24 GB/s (its speed array's
  // highest below the NIC's 25 GB/s), does not duplicate a graph below 25 GB/s, and the
  // communicator doubles it: 2. a100-pcie-nvlink-bridge's GPU0 has such a NIC on its switch.
  NcclEvidence run;
  run.label = "gather";
  run.log.file = "issue350.txt";
  run.log.output = parse::parse_nccl_tests(test::fixture_text(
      "nccl-tests_gather_a100-pcie-cx6-ib_2x1_debug-interleaved_nccl-tests-issue350"));
  run.nodes = {"n013", "n014"};
  run.gpus = {0};
  std::vector<Finding> out;
  check_nccl_setup(run, models::scenario::system_from_argument("a100-pcie-nvlink-bridge").system,
                   out);
  ASSERT_EQ(out.size(), 3U);
  EXPECT_EQ(out[2].verdict, Verdict::kPass) << out[2].expected << " / " << out[2].next;
  EXPECT_EQ(out[2].measured, "2 channels");
  EXPECT_NE(out[2].expected.find("at least 2 channels"), std::string::npos) << out[2].expected;
}

TEST(NcclSetupCheck, AJobWithoutGdrHasNoNicAffinityToJudge) {
  NcclEvidence run = job("IB", false);
  run.env = {{"NCCL_NET_GDR_LEVEL", "LOC"}};
  std::vector<Finding> out;
  check_nccl_affinity(run, models::scenario::system_from_argument("dgx-h100").system, out);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].verdict, Verdict::kSkipped);
  EXPECT_NE(out[0].next.find("NCCL_NET_GDR_LEVEL=LOC"), std::string::npos);
}

TEST(NcclSetupCheck, TheJobsNicListIsReadAsNcclReadsIt) {
  // dgx-h100's mlx5_1 is a storage function beside GPU0's compute NIC, mlx5_10 and mlx5_11 GPU6's
  // and GPU7's compute NICs: the list "mlx5_1" takes all three as prefixes, "=mlx5_1" the one.
  const models::SystemSpec design = models::scenario::system_from_argument("dgx-h100").system;
  const auto expected = [&](const std::string& list) {
    NcclEvidence run = job("IB", true);
    run.env = {{"NCCL_IB_HCA", list}};
    std::vector<Finding> out;
    check_nccl_affinity(run, design, out);
    return out.at(0).expected;
  };
  EXPECT_EQ(expected("mlx5_1").rfind("each of the job's 3 NICs within PXB", 0), 0U);
  EXPECT_EQ(expected("=mlx5_1").rfind("each of the job's 1 NICs within PXB", 0), 0U);
  NcclEvidence run = job("IB", true);
  run.env = {{"NCCL_IB_HCA", "mlx5_0:x"}};
  std::vector<Finding> out;
  EXPECT_EQ(railsim::test::input_error_text([&] {
              check_nccl_affinity(run, design, out);
            }).rfind("log.txt: NCCL_IB_HCA=mlx5_0:x: ", 0),
            0U);
}

TEST(NcclSetupCheck, ALogWithoutInfoLinesIsSkippedSayingHowToGetThem) {
  NcclEvidence run;
  run.label = "job";
  run.log.file = "log.txt";
  const std::vector<Finding> out = findings(run);
  for (const Finding& f : out) {
    EXPECT_EQ(f.verdict, Verdict::kSkipped);
    EXPECT_NE(f.next.find("NCCL_DEBUG=INFO"), std::string::npos) << f.next;
  }
}

}  // namespace
}  // namespace railsim::calibrate::check
