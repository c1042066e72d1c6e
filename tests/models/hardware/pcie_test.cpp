// File: tests/models/hardware/pcie_test.cpp
// PCIe rates against the line-coding arithmetic.
#include "models/hardware/pcie.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

namespace railsim::models {
namespace {

TEST(Pcie, RawRateIsLanesTimesTransferRateTimesCoding) {
  // Gen4 x16: 16 lanes x 16 GT/s x 128/130 / 8 = 31.508 GB/s per direction.
  EXPECT_NEAR(pcie_raw_bandwidth({4, 16}).in_gbytes_per_s(), 16 * 16 * 128.0 / 130 / 8, 1e-9);
  // Gen5 x16: 63.015 GB/s; Gen3 x8: 7.877 GB/s; Gen6 x16 (242/256 FLIT): 121.0 GB/s.
  EXPECT_NEAR(pcie_raw_bandwidth({5, 16}).in_gbytes_per_s(), 63.0154, 1e-4);
  EXPECT_NEAR(pcie_raw_bandwidth({3, 8}).in_gbytes_per_s(), 7.8769, 1e-4);
  EXPECT_NEAR(pcie_raw_bandwidth({6, 16}).in_gbytes_per_s(), 121.0, 1e-9);
}

TEST(Pcie, EffectiveRateAppliesTheCalibratedEfficiency) {
  // Gen5 x16 at 0.78: 49.15 GB/s, the ~49 GB/s NIC-GPU peer-to-peer measured on DGX H100.
  EXPECT_NEAR(pcie_effective_bandwidth({5, 16}).in_gbytes_per_s(), 63.0154 * 0.78, 1e-3);
  EXPECT_NEAR(pcie_effective_bandwidth({4, 16}, 0.5).in_gbytes_per_s(), 31.5077 * 0.5, 1e-3);
}

TEST(Pcie, RejectsUnknownGenerationsAndWidths) {
  EXPECT_THROW((void)pcie_raw_bandwidth({2, 16}), sim::InputError);
  EXPECT_THROW((void)pcie_raw_bandwidth({4, 12}), sim::InputError);
}

}  // namespace
}  // namespace railsim::models
