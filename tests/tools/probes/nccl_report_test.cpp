// File: tests/tools/probes/nccl_report_test.cpp
// railsim-probe-nccl's table on fabricated timings, read back by calibrate's parse_nccl_tests:
// the same sizes, counts and times, and algbw/busbw as nccl-tests defines them, computed here
// by hand (algbw = size / time; busbw = algbw x 2(n-1)/n for AllReduce, x (n-1)/n otherwise).
#include "tools/probes/nccl_report.hpp"

#include "calibrate/parse/nccl_tests.hpp"
#include "calibrate/parse/text_input.hpp"
#include "tools/probes/nccl_options.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace railsim::tools::probes {
namespace {

NcclRunInfo run_info(NcclOp op, DataType type, int nranks) {
  NcclRunInfo info;
  info.op = op;
  info.type = type;
  info.sizes = SizeSeries{1024, std::int64_t{1} << 30, 1024};
  info.iterations = 20;
  info.warmup = 5;
  info.nccl_version = 22809;
  for (int r = 0; r < nranks; ++r) {
    info.ranks.push_back(RankInfo{r, 4000 + r, "node" + std::to_string(r / 8), r % 8, "0000:1b:00",
                                  "NVIDIA H100 80GB HBM3"});
  }
  return info;
}

calibrate::parse::NcclTestsRun print_and_parse(const NcclRunInfo& info,
                                               const std::vector<NcclRow>& rows) {
  std::ostringstream out;
  print_nccl_tests(out, info, rows);
  const calibrate::parse::NcclTestsOutput parsed =
      calibrate::parse::parse_nccl_tests(calibrate::parse::TextInput("probe.txt", out.str()));
  EXPECT_EQ(parsed.runs.size(), 1U) << out.str();
  return parsed.runs.at(0);
}

TEST(NcclReport, AllReduceOfEightRanksRoundTrips) {
  const NcclRunInfo info = run_info(NcclOp::kAllReduce, DataType::kFloat, 8);
  // 1 MiB float: 262144 elements, 52.43 us; 1 GiB: 268435456 elements, 4741.9 us (out of
  // place) and 4750.03 in place; the second row's #wrong a fabricated 3.
  const std::vector<NcclRow> rows = {{1048576, 262144, {52.43, 0}, {52.91, 0}},
                                     {1073741824, 268435456, {4741.9, 0}, {4750.03, 3}}};
  const calibrate::parse::NcclTestsRun run = print_and_parse(info, rows);
  EXPECT_EQ(run.program, "all_reduce_perf");
  EXPECT_EQ(run.op, "all_reduce");
  EXPECT_EQ(run.ranks(), 8);
  EXPECT_EQ(run.devices.at(7).host, "node0");
  EXPECT_EQ(run.devices.at(7).device, 7);
  EXPECT_EQ(run.devices.at(7).pid, 4007);
  EXPECT_EQ(run.devices.at(7).bus_id, "0000:1b:00");
  EXPECT_EQ(run.devices.at(7).model, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(run.truncated);
  ASSERT_EQ(run.rows.size(), 2U);

  // Row 1 by hand: algbw = 1048576 B / 52.43 us = 20.0 GB/s (20.000), busbw x 14/8 = 35.00.
  const calibrate::parse::NcclTestsRow& small = run.rows[0];
  EXPECT_EQ(small.size_bytes, 1048576);
  EXPECT_EQ(small.count, 262144);
  EXPECT_EQ(small.type, "float");
  EXPECT_EQ(small.redop, "sum");
  EXPECT_EQ(small.root, -1);
  EXPECT_DOUBLE_EQ(small.out_of_place.time_us, 52.43);
  EXPECT_DOUBLE_EQ(small.out_of_place.algbw_GBps, 20.00);
  EXPECT_DOUBLE_EQ(small.out_of_place.busbw_GBps, 35.00);
  EXPECT_EQ(small.out_of_place.wrong, 0);
  // Row 2: 1073741824 / 4741.9 us = 226.436 GB/s -> 226.44; x 1.75 = 396.26.
  const calibrate::parse::NcclTestsRow& large = run.rows[1];
  EXPECT_DOUBLE_EQ(large.out_of_place.time_us, 4741.90);
  EXPECT_DOUBLE_EQ(large.out_of_place.algbw_GBps, 226.44);
  EXPECT_DOUBLE_EQ(large.out_of_place.busbw_GBps, 396.26);
  // In place: 1073741824 / 4750.03 = 226.049 -> 226.05; x 1.75 = 395.587 -> 395.59.
  EXPECT_DOUBLE_EQ(large.in_place.algbw_GBps, 226.05);
  EXPECT_DOUBLE_EQ(large.in_place.busbw_GBps, 395.59);
  EXPECT_EQ(large.in_place.wrong, 3);
  EXPECT_EQ(run.out_of_bounds, 3);
  // The mean busbw of all four results, from the unrounded values.
  const double mean =
      (1048576 / 52.43 + 1048576 / 52.91 + 1073741824 / 4741.9 + 1073741824 / 4750.03) / 1e3 *
      1.75 / 4;
  ASSERT_TRUE(run.avg_busbw_GBps.has_value());
  EXPECT_NEAR(*run.avg_busbw_GBps, mean, 5e-5);
}

TEST(NcclReport, AllGatherSizeIsTheTotalAndCountPerRank) {
  const NcclRunInfo info = run_info(NcclOp::kAllGather, DataType::kDouble, 10);
  // nccl-tests' convention (tests/data, 10 ranks of double): 33554400 B total, 419430 per rank.
  const std::vector<RowShape> shapes =
      row_shapes(NcclOp::kAllGather, DataType::kDouble, 10, SizeSeries{33554432, 33554432, 2});
  ASSERT_EQ(shapes.size(), 1U);
  EXPECT_EQ(shapes[0].size_bytes, 33554400);
  EXPECT_EQ(shapes[0].count, 419430);
  const std::vector<NcclRow> rows = {
      {shapes[0].size_bytes, shapes[0].count, {721.94, 0}, {687.61, 0}}};
  const calibrate::parse::NcclTestsRun run = print_and_parse(info, rows);
  const calibrate::parse::NcclTestsRow& row = run.rows.at(0);
  EXPECT_EQ(run.op, "all_gather");
  EXPECT_EQ(row.redop, "none");
  EXPECT_EQ(row.type, "double");
  // The fixture's own row: 46.48 GB/s and 41.83 GB/s (x 9/10) out of place.
  EXPECT_DOUBLE_EQ(row.out_of_place.algbw_GBps, 46.48);
  EXPECT_DOUBLE_EQ(row.out_of_place.busbw_GBps, 41.83);
  EXPECT_DOUBLE_EQ(row.in_place.algbw_GBps, 48.80);
  EXPECT_DOUBLE_EQ(row.in_place.busbw_GBps, 43.92);
}

TEST(NcclReport, ReduceScatterUsesTheSameConventionAndNaWhenUnchecked) {
  NcclRunInfo info = run_info(NcclOp::kReduceScatter, DataType::kBfloat16, 4);
  info.check = false;
  // 4 ranks of 2-byte elements: 1 MiB is 131072 elements per rank.
  const std::vector<RowShape> shapes =
      row_shapes(NcclOp::kReduceScatter, DataType::kBfloat16, 4, SizeSeries{1048576, 1048576, 2});
  ASSERT_EQ(shapes.size(), 1U);
  EXPECT_EQ(shapes[0].count, 131072);
  const std::vector<NcclRow> rows = {
      {1048576, 131072, {100.0, std::nullopt}, {123456.0, std::nullopt}}};
  const calibrate::parse::NcclTestsRun run = print_and_parse(info, rows);
  const calibrate::parse::NcclTestsRow& row = run.rows.at(0);
  EXPECT_EQ(row.type, "bfloat16");
  EXPECT_EQ(row.redop, "sum");
  EXPECT_FALSE(row.out_of_place.wrong.has_value());
  // 1048576 / 100 us = 10.49 GB/s; x 3/4 = 7.86.
  EXPECT_DOUBLE_EQ(row.out_of_place.algbw_GBps, 10.49);
  EXPECT_DOUBLE_EQ(row.out_of_place.busbw_GBps, 7.86);
  // Times past 100000 us print without decimals, as nccl-tests' do.
  EXPECT_DOUBLE_EQ(row.in_place.time_us, 123456.0);
  EXPECT_EQ(run.out_of_bounds, 0);
}

TEST(NcclReport, SettingsLineCarriesTheSweep) {
  const NcclRunInfo info = run_info(NcclOp::kAllReduce, DataType::kHalf, 2);
  const calibrate::parse::NcclTestsRun run =
      print_and_parse(info, {{1024, 512, {10.0, 0}, {10.0, 0}}});
  const auto value = [&](const std::string& name) {
    for (const auto& [key, v] : run.settings) {
      if (key == name) {
        return v;
      }
    }
    return std::int64_t{-999};
  };
  EXPECT_EQ(value("minBytes"), 1024);
  EXPECT_EQ(value("maxBytes"), std::int64_t{1} << 30);
  EXPECT_EQ(value("step"), 1024);
  EXPECT_EQ(run.step_kind, "factor");
  EXPECT_EQ(value("warmup iters"), 5);
  EXPECT_EQ(value("iters"), 20);
  EXPECT_EQ(value("validation"), 1);
}

TEST(NcclReport, BusBandwidthFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(busbw_factor(NcclOp::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(NcclOp::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(busbw_factor(NcclOp::kReduceScatter, 2), 0.5);
  EXPECT_DOUBLE_EQ(busbw_factor(NcclOp::kAllReduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(algbw_gbps(1'000'000'000, 1e6), 1.0);
}

}  // namespace
}  // namespace railsim::tools::probes
