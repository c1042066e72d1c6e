// File: tests/calibrate/parse/nvidia_smi_topo_test.cpp
// The topo parser against the real dumps of tests/data: every cell, affinity value and NIC
// legend entry equals the hand transcription beside the dump. Two real dumps are damaged as
// published (a fused cell, a cut excerpt) and must say so.
#include "calibrate/parse/nvidia_smi_topo.hpp"

#include "tests/calibrate/fixture.hpp"

#include <gtest/gtest.h>

#include <string>

namespace railsim::calibrate::parse {
namespace {

using nlohmann::json;

void expect_matches_transcription(const NvidiaSmiTopo& topo, const json& expected) {
  const json& t = expected.at("topology");
  EXPECT_EQ(topo.devices, t.at("columns").get<std::vector<std::string>>());
  EXPECT_EQ(topo.affinity_columns, t.at("affinity_columns").get<std::vector<std::string>>());
  const json& matrix = t.at("matrix");
  ASSERT_EQ(topo.rows.size(), matrix.size());
  for (const TopoRow& row : topo.rows) {
    SCOPED_TRACE(row.device);
    const json& cells = matrix.at(row.device);
    ASSERT_EQ(row.links.size(), topo.devices.size());
    for (std::size_t i = 0; i < row.links.size(); ++i) {
      EXPECT_EQ(to_string(row.links[i]), cells.at(topo.devices[i])) << topo.devices[i];
    }
    const json& affinity = t.at("affinity_raw");
    if (affinity.contains(row.device)) {
      EXPECT_EQ(row.affinity, affinity.at(row.device).get<std::vector<std::string>>());
    } else {
      EXPECT_TRUE(row.affinity.empty());
    }
  }
  std::map<std::string, std::string> nic_legend(topo.nic_legend.begin(), topo.nic_legend.end());
  EXPECT_EQ(nic_legend, t.value("nic_legend", json::object()).get<decltype(nic_legend)>());
}

class TopoDump : public ::testing::TestWithParam<const char*> {};

TEST_P(TopoDump, MatrixAffinityAndNicLegendMatchTheTranscription) {
  const NvidiaSmiTopo topo = parse_nvidia_smi_topo(test::fixture_text(GetParam()));
  EXPECT_FALSE(topo.truncated);
  expect_matches_transcription(topo, test::fixture_json(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(
    RealDumps,
    TopoDump,
    ::testing::Values("topo_dgx-a100_nvidia-smi-topo-m_12nic",
                      "topo_hgx-h100_nvidia-smi-topo-m_12nic_mooncake-issue2039",
                      "topo_a100-pcie-nvlink-bridge_nvidia-smi-topo-m_nccl-tests-issue178"));

// From the raw text of the Mooncake dump: a cell's class and NVLink count, and the legend.
TEST(NvidiaSmiTopo, CellsCarryTheirClassAndNvlinkCount) {
  const NvidiaSmiTopo topo = parse_nvidia_smi_topo(
      test::fixture_text("topo_hgx-h100_nvidia-smi-topo-m_12nic_mooncake-issue2039"));
  const TopoRow& gpu0 = topo.rows.at(0);
  EXPECT_EQ(gpu0.links.at(0), (TopoLink{models::PathClass::kSelf, 0}));
  EXPECT_EQ(gpu0.links.at(1), (TopoLink{models::PathClass::kNvlink, 18}));
  EXPECT_EQ(gpu0.links.at(8), (TopoLink{models::PathClass::kPix, 0}));    // NIC0
  EXPECT_EQ(gpu0.links.at(11), (TopoLink{models::PathClass::kNode, 0}));  // NIC3
  EXPECT_EQ(gpu0.links.at(14), (TopoLink{models::PathClass::kSys, 0}));   // NIC6
  EXPECT_EQ(gpu0.line, 3);
  ASSERT_EQ(topo.legend.size(), 7u);
  EXPECT_EQ(topo.legend.front(), (std::pair<std::string, std::string>{"X", "Self"}));
  EXPECT_EQ(topo.legend.back().first, "NV#");
}

// As published, the VM dump's last NIC cell and CPU affinity are fused into "PH0-115" (its
// .json notes say so): an error at GPU0's row (line 3), never a guess.
TEST(NvidiaSmiTopo, FusedCellOfTheVmDumpIsAnErrorAtItsLine) {
  const TextInput input = test::fixture_text("topo_a100-sxm4-40gb-vm_all-PHB_8nic");
  EXPECT_TRUE(test::fails_at([&] { parse_nvidia_smi_topo(input); }, input.name(), 3,
                             "GPU0, column NIC7: expected X, NV#, PIX, PXB, PHB, NODE or SYS, got "
                             "'PH0-115'"));
}

// The nccl#1264 excerpt stops after NIC2's row: the 11 rows present match the transcription,
// and the result says the other 7 are missing.
TEST(NvidiaSmiTopo, ExcerptCutAfterNic2IsTruncatedWithItsRowsIntact) {
  const char* stem = "topo_hgx-h100_nvidia-smi-topo-m_10nic_nccl-issue1264";
  const NvidiaSmiTopo topo = parse_nvidia_smi_topo(test::fixture_text(stem));
  EXPECT_TRUE(topo.truncated);
  EXPECT_EQ(topo.rows.size(), 11u);
  EXPECT_EQ(topo.devices.size(), 18u);
  expect_matches_transcription(topo, test::fixture_json(stem));
}

}  // namespace
}  // namespace railsim::calibrate::parse
