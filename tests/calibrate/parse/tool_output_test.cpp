// File: tests/calibrate/parse/tool_output_test.cpp
// Format names and detection: every real fixture of tests/data is recognised as the tool that
// wrote it (the file name says which), and a format name railsim does not know is an error
// listing the known ones.
#include "calibrate/parse/tool_output.hpp"

#include "tests/calibrate/fixture.hpp"

#include <gtest/gtest.h>

namespace railsim::calibrate::parse {
namespace {

struct Fixture {
  const char* stem;
  ToolFormat format;
};

class FixtureFormat : public ::testing::TestWithParam<Fixture> {};

TEST_P(FixtureFormat, IsDetectedFromTheContent) {
  const TextInput input = test::fixture_text(GetParam().stem);
  EXPECT_EQ(detect_format(input), GetParam().format);
}

INSTANTIATE_TEST_SUITE_P(
    RealFixtures,
    FixtureFormat,
    ::testing::Values(
        Fixture{"perftest_write+read+send-bw+send-lat_cx7-ndr-b2b_csegpu", ToolFormat::kPerftest},
        Fixture{"perftest_write-bw-sweep+write-lat-sweep_cx6-hdr_2node_node0-node1",
                ToolFormat::kPerftest},
        Fixture{"nccl-tests_5ops_h100_10node-2gpn_xxrjun-cluster01", ToolFormat::kNcclTests},
        Fixture{"nccl-tests_allreduce-tree_h100-roce_2node-1gpn-4nic_nccl-tests-issue232",
                ToolFormat::kNcclTests},
        Fixture{"nccl-tests_allreduce_gcp-a3mega-h100_2node-8gpn_lessizzmore",
                ToolFormat::kNcclTests},
        Fixture{"topo_dgx-a100_nvidia-smi-topo-m_12nic", ToolFormat::kNvidiaSmiTopo},
        Fixture{"topo_a100-sxm4-40gb-vm_all-PHB_8nic", ToolFormat::kNvidiaSmiTopo},
        Fixture{"topo_hgx-h100_nvidia-smi-topo-m_10nic_nccl-issue1264", ToolFormat::kNvidiaSmiTopo},
        Fixture{"ibdev2netdev_dgx-h100-cx7-ndr-ib_xxrjun-cnode3-011", ToolFormat::kIbdev2netdev},
        Fixture{"ibdev2netdev_h100-roce-12nic_sglang-notes-aihub0007", ToolFormat::kIbdev2netdev},
        Fixture{"ibstat_cx7-ndr-ib+cx6dx-eth_mooncake-issue2039", ToolFormat::kIbstat}));

TEST(ToolFormat, NamesRoundTrip) {
  for (const ToolFormat format :
       {ToolFormat::kPerftest, ToolFormat::kNcclTests, ToolFormat::kNvidiaSmiTopo,
        ToolFormat::kIbdev2netdev, ToolFormat::kIbstat}) {
    EXPECT_EQ(tool_format_named(to_string(format)), format);
  }
}

TEST(ToolFormat, UnknownNameListsTheFormats) {
  try {
    tool_format_named("nccl");
    FAIL() << "expected an error";
  } catch (const sim::InputError& error) {
    EXPECT_STREQ(error.what(),
                 "expected a format of perftest, nccl-tests, nvidia-smi-topo, ibdev2netdev, "
                 "ibstat, lspci, got 'nccl'");
  }
}

// parse_tool_output hands the input to the named parser, or the detected one.
TEST(ToolFormat, ParseDispatchesToTheDetectedParser) {
  const ToolOutput output = parse_tool_output(
      test::fixture_text("ibstat_cx7-ndr-ib+cx6dx-eth_mooncake-issue2039"), std::nullopt);
  ASSERT_TRUE(std::holds_alternative<IbstatOutput>(output));
  EXPECT_EQ(std::get<IbstatOutput>(output).cas.size(), 12u);
}

}  // namespace
}  // namespace railsim::calibrate::parse
