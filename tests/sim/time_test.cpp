// File: tests/sim/time_test.cpp
// Picosecond time: unit helpers round to the nearest picosecond; formatting picks the unit.
#include "sim/time.hpp"

#include "sim/input_error.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace railsim::sim {
namespace {

TEST(Time, UnitHelpersCountPicoseconds) {
  EXPECT_EQ(ps(7).count(), 7);
  EXPECT_EQ(ns(1).count(), 1'000);
  EXPECT_EQ(us(1.5).count(), 1'500'000);  // "1.5us" is exact
  EXPECT_EQ(ms(2).count(), 2'000'000'000);
  EXPECT_EQ(seconds(3).count(), 3'000'000'000'000);
}

TEST(Time, FractionalPicosecondsRoundToNearest) {
  EXPECT_EQ(ns(0.0004).count(), 0);  // 0.4 ps
  EXPECT_EQ(ns(0.0006).count(), 1);  // 0.6 ps
}

TEST(Time, DurationsBeyondTheRangeAreRejected) {
  // int64 picoseconds end near 106 days (9.2e6 s).
  EXPECT_THROW((void)seconds(1e7), InputError);
  EXPECT_NO_THROW((void)seconds(9e6));
}

TEST(Time, ConversionsToSecondsMillisecondsAndMicroseconds) {
  EXPECT_DOUBLE_EQ(to_seconds(ms(250)), 0.25);
  EXPECT_DOUBLE_EQ(to_us(ns(1500)), 1.5);
  // Correctly rounded, so printed in the shortest form that reads back, they read as written.
  EXPECT_EQ(fmt::format("{}", to_us(Duration{56'002'985})), "56.002985");
  EXPECT_EQ(fmt::format("{}", to_seconds(Duration{123'456'789})), "0.000123456789");
  EXPECT_EQ(fmt::format("{}", to_ms(Duration{68'402'123'456})), "68.402123456");
}

TEST(Time, FormattingPicksTheLargestUnitAtLeastOne) {
  EXPECT_EQ(format_duration(ps(12)), "12 ps");
  EXPECT_EQ(format_duration(ns(10.24)), "10.240 ns");
  EXPECT_EQ(format_duration(us(1.5)), "1.500 us");
  EXPECT_EQ(format_duration(ms(3.25)), "3.250 ms");
  EXPECT_EQ(format_duration(seconds(2)), "2.000 s");
  EXPECT_EQ(format_duration(-us(2)), "-2.000 us");
  EXPECT_EQ(format_time(at(us(4))), "4.000 us");
}

}  // namespace
}  // namespace railsim::sim
