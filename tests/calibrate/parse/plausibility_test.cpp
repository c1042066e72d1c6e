// File: tests/calibrate/parse/plausibility_test.cpp
// Readings no hardware gives are taken out, each named at its line: a rate just under 10 TB/s
// stays and one over it goes, a duration over a day goes, a CPU id of 2^20 becomes N/A while
// 2^20 - 1 stays, and a single rank's in-place algbw (size over a near-zero time) is no
// reading to bound. Under --strict the first is an error at its line.
#include "calibrate/parse/plausibility.hpp"

#include <gtest/gtest.h>

#include <string>

namespace railsim::calibrate::parse {
namespace {

NcclTestsRow nccl_row(int line, double busbw_GBps) {
  NcclTestsRow row;
  row.size_bytes = 1 << 20;
  row.count = 1 << 18;
  row.line = line;
  row.out_of_place = {100.0, busbw_GBps, busbw_GBps, 0, std::nullopt};
  row.in_place = row.out_of_place;
  return row;
}

TEST(Plausibility, ABusbwAboveAnyLinkTakesItsRowOut) {
  NcclTestsOutput output;
  output.runs.resize(1);
  // 9,999 GB/s stays (a bound with room above the fastest link); 10,001 GB/s goes.
  output.runs[0].rows = {nccl_row(12, 9'999.0), nccl_row(13, 10'001.0), nccl_row(14, 40.0)};
  output.runs[0].rows[2].in_place.time_us = 86'400e6 + 1.0;  // a day and a microsecond
  const std::vector<Implausible> removed = remove_implausible(output);
  ASSERT_EQ(removed.size(), 2U);
  EXPECT_EQ(removed[0].line, 13);
  EXPECT_EQ(removed[0].what, "out-of-place busbw 1e+04 GB/s is above any link (10 TB/s)");
  EXPECT_EQ(removed[1].line, 14);
  EXPECT_EQ(removed[1].what, "in-place time 8.64e+10 us is longer than a day");
  ASSERT_EQ(output.runs[0].rows.size(), 1U);
  EXPECT_EQ(output.runs[0].rows[0].line, 12);
}

TEST(Plausibility, OneRanksInPlaceAlgbwHasNoBound) {
  NcclTestsOutput output;
  output.runs.resize(1);
  NcclTestsRow row = nccl_row(12, 0.0);
  row.in_place.algbw_GBps = 1.6e6;  // 8 GB in 5 us: nothing moved
  output.runs[0].rows = {row};
  EXPECT_TRUE(remove_implausible(output).empty());
  EXPECT_EQ(output.runs[0].rows.size(), 1U);
}

TEST(Plausibility, PerftestRatesAreBoundedInTheirOwnUnit) {
  PerftestOutput output;
  output.runs.resize(1);
  output.runs[0].bw_unit = PerftestRateUnit::kGbPerSec;
  // 79,000 Gb/s = 9.875 TB/s stays; 81,000 Gb/s = 10.125 TB/s goes; a negative size goes.
  output.runs[0].bw_rows = {{65536, 1000, 79'000.0, 79'000.0, 0.6, 106},
                            {65536, 1000, 81'000.0, 300.0, 0.6, 107},
                            {-8, 1000, 300.0, 300.0, 0.6, 108}};
  const std::vector<Implausible> removed = remove_implausible(output);
  ASSERT_EQ(removed.size(), 2U);
  EXPECT_EQ(removed[0].what, "BW peak 81000 Gb/sec is above any link (10 TB/s)");
  EXPECT_EQ(removed[1].what, "size -8 is negative");
  EXPECT_EQ(output.runs[0].bw_rows.size(), 1U);
}

TEST(Plausibility, ACpuIdOfTwoToTheTwentyIsReadAsNotAvailable) {
  ToolOutput output = NvidiaSmiTopo{};
  auto& topo = std::get<NvidiaSmiTopo>(output);
  topo.affinity_columns = {"CPU Affinity", "NUMA Affinity"};
  topo.rows = {{"GPU0", {}, {"0-1048575", "0"}, 2}, {"GPU1", {}, {"0-31,1048576", "1"}, 3}};
  const std::vector<Implausible> removed = remove_implausible(output);
  ASSERT_EQ(removed.size(), 1U);
  EXPECT_EQ(removed[0].line, 3);
  EXPECT_EQ(removed[0].what, "GPU1, CPU Affinity: id 1048576 is beyond any machine (2^20)");
  EXPECT_EQ(topo.rows[0].affinity[0], "0-1048575");
  EXPECT_EQ(topo.rows[1].affinity[0], "N/A");
  EXPECT_EQ(topo.rows[1].affinity[1], "1");
}

TEST(Plausibility, PcieAndIbstatReadingsBeyondTheStandardsGo) {
  ToolOutput lspci = LspciOutput{};
  LspciFunction function;
  function.address = "0000:1b:00.0";
  function.capable = PcieLinkReading{32.0, 16, 20};
  function.trained = PcieLinkReading{512.0, 16, 21};
  std::get<LspciOutput>(lspci).functions = {function};
  const std::vector<Implausible> pcie = remove_implausible(lspci);
  ASSERT_EQ(pcie.size(), 1U);
  EXPECT_EQ(pcie[0].line, 21);
  EXPECT_EQ(pcie[0].what,
            "0000:1b:00.0 LnkSta: 512 GT/s is beyond PCIe (256 GT/s per lane at most)");
  EXPECT_TRUE(std::get<LspciOutput>(lspci).functions[0].capable.has_value());
  EXPECT_FALSE(std::get<LspciOutput>(lspci).functions[0].trained.has_value());

  ToolOutput ibstat = IbstatOutput{};
  IbstatCa ca;
  ca.name = "mlx5_0";
  ca.ports = {IbstatPort{}};
  ca.ports[0].rate_gbps = 4e6;
  ca.ports[0].line = 9;
  std::get<IbstatOutput>(ibstat).cas = {ca};
  const std::vector<Implausible> rate = remove_implausible(ibstat);
  ASSERT_EQ(rate.size(), 1U);
  EXPECT_EQ(rate[0].what, "mlx5_0 port: Rate 4e+06 Gb/s is above any link (10 TB/s)");
  EXPECT_TRUE(std::get<IbstatOutput>(ibstat).cas[0].ports.empty());
}

TEST(Plausibility, WarningsNameTheLineAndStrictMakesTheFirstAnError) {
  const std::vector<Implausible> removed = {{13, "busbw 2e+04 GB/s is above any link (10 TB/s)"},
                                            {20, "t_max 1e+23 us is longer than a day"}};
  const std::vector<std::string> warnings = implausible_warnings("log.txt", removed, false);
  ASSERT_EQ(warnings.size(), 2U);
  EXPECT_EQ(warnings[0],
            "log.txt:13: busbw 2e+04 GB/s is above any link (10 TB/s); not used as a measurement");
  try {
    implausible_warnings("log.txt", removed, true);
    FAIL() << "expected a ParseError";
  } catch (const ParseError& error) {
    EXPECT_EQ(error.line(), 13);
    EXPECT_EQ(std::string(error.what()),
              "log.txt:13: busbw 2e+04 GB/s is above any link (10 TB/s) (--strict)");
  }
}

}  // namespace
}  // namespace railsim::calibrate::parse
