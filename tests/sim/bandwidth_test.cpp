// File: tests/sim/bandwidth_test.cpp
// Bytes and Bandwidth factories, and the one rounding rule from bytes at a rate to time.
#include "sim/bandwidth.hpp"

#include <gtest/gtest.h>

namespace railsim::sim {
namespace {

TEST(Bytes, FactoriesUsePowersOf1024And1000) {
  EXPECT_EQ(kib(1).count, 1024);
  EXPECT_EQ(mib(64).count, 64LL * 1024 * 1024);
  EXPECT_EQ(gib(8).count, 8LL * 1024 * 1024 * 1024);
  EXPECT_EQ(kb(1).count, 1000);
  EXPECT_EQ(gb(2).count, 2'000'000'000);
  EXPECT_EQ((kib(1) + bytes(24)) * 2, bytes(2096));
}

TEST(Bandwidth, GbpsIsGigabitsPerSecond) {
  // 400 Gb/s = 400e9 / 8 = 50e9 bytes/s.
  EXPECT_DOUBLE_EQ(gbps(400).bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(gbps(400).in_gbps(), 400.0);
  EXPECT_DOUBLE_EQ(gbytes_per_s(25).bytes_per_s, 25e9);
  EXPECT_DOUBLE_EQ(gbytes_per_s(25).in_gbytes_per_s(), 25.0);
}

TEST(TransferTime, WholePicosecondsAreExact) {
  // 1000 B at 1 GB/s = 1 us = 1e6 ps exactly, not one tick more.
  EXPECT_EQ(transfer_time_ceil(bytes(1000), gbytes_per_s(1)).count(), 1'000'000);
  // 1 MB at 10 GB/s = 100 us.
  EXPECT_EQ((mb(1) / gbytes_per_s(10)), us(100));
}

TEST(TransferTime, FractionsRoundUpToTheNextPicosecond) {
  // 1 KiB at 800 Gb/s (100e9 B/s) = 10.24 ns = 10240 ps exactly.
  EXPECT_EQ(transfer_time_ceil(kib(1), gbps(800)).count(), 10'240);
  // 1 B at 3e12 B/s = 1/3 ps: rounds up to 1 ps, so an event always makes progress.
  EXPECT_EQ(transfer_time_ceil(bytes(1), bytes_per_s(3e12)).count(), 1);
  // 10 B at 3 B/ps = 3.33 ps -> 4 ps.
  EXPECT_EQ(transfer_time_ceil(bytes(10), bytes_per_s(3e12)).count(), 4);
}

TEST(TransferTime, ZeroBytesTakeNoTimeAndZeroRateTakesForever) {
  EXPECT_EQ(transfer_time_ceil(bytes(0), gbps(100)), Duration::zero());
  EXPECT_EQ(transfer_time_ceil(bytes(1), bytes_per_s(0.0)), Duration::max());
  EXPECT_EQ(transfer_time_ceil(1e30, 1.0), Duration::max());
}

TEST(Bandwidth, RateOfIsBytesOverTime) {
  // 1 GB in 40 ms = 25 GB/s.
  EXPECT_DOUBLE_EQ(rate_of(gb(1), ms(40)).in_gbytes_per_s(), 25.0);
}

}  // namespace
}  // namespace railsim::sim
