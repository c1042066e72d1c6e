// File: tests/tools/report/axis_test.cpp
// Tick generation, the data-to-pixel map and the tick labels of tools/report/axis.hpp; every
// expected value is worked out by hand in the comment beside it.
#include "tools/report/axis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace railsim::tools::report {
namespace {

std::vector<double> values_of(const AxisTicks& ticks, bool major) {
  std::vector<double> out;
  for (const Tick& t : ticks.ticks) {
    if (t.major == major) {
      out.push_back(t.value);
    }
  }
  return out;
}

TEST(Axis, LinearTicksOfZeroToSevenPointThreeStepByTwo) {
  // 7.3 / 5 intervals = 1.46, the next 1-2-5 step is 2: 0, 2, 4, 6, 8 covering 0..7.3.
  const AxisTicks ticks = linear_ticks(0.0, 7.3);
  EXPECT_EQ(ticks.step, 2.0);
  EXPECT_EQ(values_of(ticks, true), (std::vector<double>{0, 2, 4, 6, 8}));
  EXPECT_TRUE(values_of(ticks, false).empty());
  EXPECT_EQ(ticks.lo, 0.0);
  EXPECT_EQ(ticks.hi, 8.0);
}

TEST(Axis, LinearTicksOfSmallFractionsStepByTwoHundredths) {
  // (0.087 - 0.013) / 5 = 0.0148 -> step 0.02; floor(0.65) = 0 .. ceil(4.35) = 5 -> 0 .. 0.1.
  const AxisTicks ticks = linear_ticks(0.013, 0.087);
  EXPECT_DOUBLE_EQ(ticks.step, 0.02);
  ASSERT_EQ(ticks.ticks.size(), 6U);
  EXPECT_EQ(format_tick(ticks.ticks[0].value, TickFormat::kNumber, ticks), "0");
  EXPECT_EQ(format_tick(ticks.ticks[1].value, TickFormat::kNumber, ticks), "0.02");
  EXPECT_EQ(format_tick(ticks.ticks[5].value, TickFormat::kNumber, ticks), "0.1");
}

TEST(Axis, LinearTicksStraddlingZero) {
  // 6 / 5 = 1.2 -> step 2; -3 rounds down to -4 and 3 up to 4.
  EXPECT_EQ(values_of(linear_ticks(-3.0, 3.0), true), (std::vector<double>{-4, -2, 0, 2, 4}));
}

TEST(Axis, LinearTicksWidenAnEmptyRange) {
  const AxisTicks ticks = linear_ticks(5.0, 5.0);
  EXPECT_LT(ticks.lo, 5.0);
  EXPECT_GT(ticks.hi, 5.0);
}

TEST(Axis, IncludeZeroStartsALinearAxisAtZero) {
  // 40..48 with 0 included: 48 / 5 = 9.6 -> step 10 -> 0..50.
  const AxisTicks ticks = make_ticks(AxisScale::kLinear, 40.0, 48.0, true);
  EXPECT_EQ(ticks.lo, 0.0);
  EXPECT_EQ(ticks.hi, 50.0);
}

TEST(Axis, Log10TicksOfEightBytesToEightGibHaveEachDecade) {
  // log10(8) = 0.90 -> 10^0; log10(8 Gi = 8.59e9) = 9.93 -> 10^10: eleven decades, and minors
  // at 2 and 5 in each of the ten intervals.
  const AxisTicks ticks = log10_ticks(8.0, 8.0 * 1024 * 1024 * 1024);
  const std::vector<double> majors = values_of(ticks, true);
  ASSERT_EQ(majors.size(), 11U);
  for (std::size_t e = 0; e < majors.size(); ++e) {
    EXPECT_DOUBLE_EQ(majors[e], std::pow(10.0, static_cast<double>(e)));
  }
  const std::vector<double> minors = values_of(ticks, false);
  ASSERT_EQ(minors.size(), 20U);
  EXPECT_DOUBLE_EQ(minors[0], 2.0);
  EXPECT_DOUBLE_EQ(minors[1], 5.0);
  EXPECT_DOUBLE_EQ(minors[19], 5e9);
  EXPECT_EQ(ticks.lo, 1.0);
  EXPECT_EQ(ticks.hi, 1e10);
  for (std::size_t i = 1; i < ticks.ticks.size(); ++i) {
    EXPECT_LT(ticks.ticks[i - 1].value, ticks.ticks[i].value);
  }
  EXPECT_EQ(format_tick(1000.0, TickFormat::kNumber, ticks), "1000");
  EXPECT_EQ(format_tick(1e9, TickFormat::kNumber, ticks), "1e9");
  EXPECT_EQ(format_tick(0.01, TickFormat::kNumber, log10_ticks(0.01, 1.0)), "0.01");
}

TEST(Axis, Log2TicksOfEightBytesToEightGibLabelKibMibGib) {
  // 2^3 .. 2^33 is 31 powers of two; every 5th octave gives 2^5, 2^10, ..., 2^30: six labels.
  const AxisTicks ticks = log2_ticks(8.0, 8.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(ticks.lo, 8.0);
  EXPECT_EQ(ticks.hi, 8.0 * 1024 * 1024 * 1024);
  std::vector<std::string> labels;
  for (const double v : values_of(ticks, true)) {
    labels.push_back(format_tick(v, TickFormat::kBytes, ticks));
  }
  EXPECT_EQ(labels,
            (std::vector<std::string>{"32 B", "1 KiB", "32 KiB", "1 MiB", "32 MiB", "1 GiB"}));
  EXPECT_EQ(ticks.ticks.size(), 31U);
}

TEST(Axis, LinearMapPutsAKnownPointAtItsPixel) {
  // 0..8 onto 100..500 px: 2 -> 100 + 2/8 * 400 = 200; 7.3 -> 100 + 7.3/8 * 400 = 465.
  const AxisMap x(AxisScale::kLinear, 0.0, 8.0, 100.0, 500.0);
  EXPECT_DOUBLE_EQ(x.to_pixel(2.0), 200.0);
  EXPECT_DOUBLE_EQ(x.to_pixel(7.3), 465.0);
  // A y axis runs upwards: 0..8 onto 400..80 px, 6 -> 400 - 6/8 * 320 = 160.
  const AxisMap y(AxisScale::kLinear, 0.0, 8.0, 400.0, 80.0);
  EXPECT_DOUBLE_EQ(y.to_pixel(6.0), 160.0);
}

TEST(Axis, LogMapIsProportionalToTheExponent) {
  // 1..1000 onto 0..300 px: each decade is 100 px, sqrt(1000) = 10^1.5 sits at 150.
  const AxisMap log10_map(AxisScale::kLog10, 1.0, 1000.0, 0.0, 300.0);
  EXPECT_NEAR(log10_map.to_pixel(10.0), 100.0, 1e-9);
  EXPECT_NEAR(log10_map.to_pixel(std::sqrt(1000.0)), 150.0, 1e-9);
  // 2^3..2^33 onto 0..300 px: 1 MiB = 2^20 -> (20 - 3) / 30 * 300 = 170.
  const AxisMap log2_map(AxisScale::kLog2, 8.0, std::ldexp(1.0, 33), 0.0, 300.0);
  EXPECT_NEAR(log2_map.to_pixel(std::ldexp(1.0, 20)), 170.0, 1e-9);
  EXPECT_FALSE(log2_map.plottable(0.0));
  EXPECT_FALSE(log2_map.plottable(NAN));
  EXPECT_TRUE(log2_map.plottable(1e-3));
}

TEST(Axis, SizesUseTheLargestBinaryUnit) {
  EXPECT_EQ(format_bytes(8.0), "8 B");
  EXPECT_EQ(format_bytes(1000.0), "1000 B");
  EXPECT_EQ(format_bytes(1024.0), "1 KiB");
  EXPECT_EQ(format_bytes(1536.0), "1.5 KiB");
  EXPECT_EQ(format_bytes(1024.0 * 1024.0), "1 MiB");
  EXPECT_EQ(format_bytes(8.0 * 1024 * 1024 * 1024), "8 GiB");
}

TEST(Axis, CompactNumbersKeepAboutThreeDigits) {
  EXPECT_EQ(format_number(182.347), "182");
  EXPECT_EQ(format_number(12.5), "12.5");
  EXPECT_EQ(format_number(2.0), "2");
  EXPECT_EQ(format_number(0.01234), "0.0123");
  EXPECT_EQ(format_number(-0.0), "0");
  EXPECT_EQ(format_number(NAN), "n/a");
  EXPECT_EQ(format_coordinate(200.0), "200");
  EXPECT_EQ(format_coordinate(12.345678), "12.35");
}

}  // namespace
}  // namespace railsim::tools::report
