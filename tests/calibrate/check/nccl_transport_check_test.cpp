// File: tests/calibrate/check/nccl_transport_check_test.cpp
// The transport NCCL reported, judged against the design (dgx-h100: every GPU has a
// GDR-capable CX-7 behind its own PCIe switch, PIX, within the GDR level PXB): TCP sockets
// across nodes and inter-node connections without GDRDMA fail citing the INFO line; GDRDMA over
// IB passes; a log without INFO lines is skipped with how to get them. NCCL_NET_GDR_LEVEL, in any
// of NCCL's spellings, decides whether GDR is expected.
#include "calibrate/check/nccl_transport_check.hpp"

#include "tests/input_error_text.hpp"

#include "calibrate/check/nccl_run_check.hpp"
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
  return run;
}

std::vector<Finding> findings(const NcclEvidence& run) {
  std::vector<Finding> out;
  check_nccl_transport(run, models::scenario::system_from_argument("dgx-h100").system, out);
  EXPECT_EQ(out.size(), 2U);
  return out;
}

TEST(NcclTransportCheck, GdrOverIbPassesCitingTheLines) {
  const std::vector<Finding> out = findings(job("IB", true));
  EXPECT_EQ(out[0].check, "network");
  EXPECT_EQ(out[0].verdict, Verdict::kPass);
  EXPECT_EQ(out[0].evidence, "log.txt:12");
  EXPECT_EQ(out[1].check, "GPUDirect RDMA");
  EXPECT_EQ(out[1].verdict, Verdict::kPass);
  EXPECT_EQ(out[1].evidence, "log.txt:40");
  EXPECT_EQ(out[1].measured, "via NET/IB/GDRDMA (32 connections)");
}

TEST(NcclTransportCheck, SocketsAcrossNodesAndNoGdrFail) {
  const std::vector<Finding> out = findings(job("Socket", false));
  EXPECT_EQ(out[0].verdict, Verdict::kFail);
  EXPECT_EQ(out[0].measured, "Using network Socket");
  EXPECT_EQ(out[1].verdict, Verdict::kFail);
  EXPECT_EQ(out[1].severity, Severity::kMajor);
  EXPECT_EQ(out[1].measured, "via NET/Socket without GDRDMA (32 connections)");
}

TEST(NcclTransportCheck, NoGdrWhereTheDesignHasNoneEitherPasses) {
  NcclEvidence run = job("IB", false);
  models::SystemSpec design = models::scenario::system_from_argument("dgx-h100").system;
  design.gdr_off_nodes = {0, 1};
  std::vector<Finding> out;
  check_nccl_transport(run, design, out);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[1].verdict, Verdict::kPass);
}

TEST(NcclTransportCheck, NcclsGdrLevelNamesDecideWhetherGdrIsExpected) {
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
  EXPECT_EQ(test::input_error_text([&] {
              check_nccl_transport(run, models::scenario::system_from_argument("dgx-h100").system,
                                   out);
            }),
            "log.txt: NCCL_NET_GDR_LEVEL=NEAR: expected LOC, PIX, PXB, PHB, NODE or SYS (or 0-5)");
}

TEST(NcclTransportCheck, AJobWithoutGdrHasNoNicAffinityToJudge) {
  NcclEvidence run = job("IB", false);
  run.env = {{"NCCL_NET_GDR_LEVEL", "LOC"}};
  std::vector<Finding> out;
  check_nccl_affinity(run, models::scenario::system_from_argument("dgx-h100").system, out);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].verdict, Verdict::kSkipped);
  EXPECT_NE(out[0].next.find("NCCL_NET_GDR_LEVEL=LOC"), std::string::npos);
}

TEST(NcclTransportCheck, ALogWithoutInfoLinesIsSkippedSayingHowToGetThem) {
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
