// File: tests/tools/profile_option_test.cpp
// The one-sigma band of a prediction under a profile, against its closed form sqrt(g^T C g) for
// predictions linear in the fitted parameters, with g worked out by hand.
#include "tools/profile_option.hpp"

#include "calibrate/fit/model_parameters.hpp"
#include "models/hardware/node_presets.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace railsim::tools {
namespace {

calibrate::fit::ProfileParameter fitted(const char* name, double value, double sigma) {
  return {calibrate::fit::find_model_parameter(name), value, sigma, value,
          calibrate::fit::VariableStatus::kFitted};
}

struct Bench {
  Bench() {
    system.node = models::node_preset("dgx-h100");
    system.nodes = 2;
  }

  models::SystemSpec system;
  models::CollectiveCalibration calibration;
};

// Two figures, linear in the base latency b (us) and the NVLink efficiency e:
// f0 = 3b + 100e, f1 = -b.
std::vector<double> linear(const models::SystemSpec& system,
                           const models::CollectiveCalibration& calibration) {
  const double b = sim::to_us(calibration.base_latency);
  const double e = system.node.nvlink.efficiency;
  return {3.0 * b + 100.0 * e, -b};
}

TEST(ProfileBand, OneParameterScalesItsSigmaBySlope) {
  LoadedProfile loaded;
  loaded.profile.parameters = {fitted("collective_base_latency_us", 20.0, 2.0)};
  loaded.profile.covariance = {{4.0}};
  Bench bench;
  bench.calibration.base_latency = sim::us(20.0);
  const std::vector<double> at = linear(bench.system, bench.calibration);
  const std::vector<double> band =
      one_sigma_band(loaded, bench.system, bench.calibration, at, linear);
  ASSERT_EQ(band.size(), 2U);
  EXPECT_NEAR(band[0], 3.0 * 2.0, 1e-6);  // |df0/db| sigma_b
  EXPECT_NEAR(band[1], 1.0 * 2.0, 1e-6);
}

TEST(ProfileBand, CorrelatedParametersCombineThroughTheCovariance) {
  // sigma_b = 2, sigma_e = 0.01, correlation -0.5: cov_be = -0.5 x 2 x 0.01 = -0.01.
  // f0: g = (3, 100): var = 9 x 4 + 2 x 3 x 100 x (-0.01) + 10000 x 1e-4 = 36 - 6 + 1 = 31.
  // f1: g = (-1, 0): var = 4.
  LoadedProfile loaded;
  loaded.profile.parameters = {fitted("nvlink_efficiency", 0.8, 0.01),
                               fitted("collective_base_latency_us", 20.0, 2.0)};
  // In profile order: nvlink_efficiency first.
  loaded.profile.covariance = {{1e-4, -0.01}, {-0.01, 4.0}};
  Bench bench;
  bench.system.node.nvlink.efficiency = 0.8;
  bench.calibration.base_latency = sim::us(20.0);
  const std::vector<double> at = linear(bench.system, bench.calibration);
  const std::vector<double> band =
      one_sigma_band(loaded, bench.system, bench.calibration, at, linear);
  EXPECT_NEAR(band[0], std::sqrt(31.0), 1e-5);
  EXPECT_NEAR(band[1], 2.0, 1e-6);
}

TEST(ProfileBand, ParameterNearItsBoundStepsInward) {
  // nvlink_efficiency 0.995 with sigma 0.01: the step goes down (the bound is 1), same slope.
  LoadedProfile loaded;
  loaded.profile.parameters = {fitted("nvlink_efficiency", 0.995, 0.01)};
  loaded.profile.covariance = {{1e-4}};
  Bench bench;
  bench.system.node.nvlink.efficiency = 0.995;
  const std::vector<double> at = linear(bench.system, bench.calibration);
  const std::vector<double> band =
      one_sigma_band(loaded, bench.system, bench.calibration, at, linear);
  EXPECT_NEAR(band[0], 100.0 * 0.01, 1e-6);
}

TEST(ProfileBand, UnboundedSigmaGivesAnUnboundedBand) {
  LoadedProfile loaded;
  loaded.profile.parameters = {
      fitted("collective_base_latency_us", 20.0, std::numeric_limits<double>::infinity())};
  loaded.profile.covariance = {{std::numeric_limits<double>::infinity()}};
  Bench bench;
  const std::vector<double> band = one_sigma_band(loaded, bench.system, bench.calibration,
                                                  linear(bench.system, bench.calibration), linear);
  EXPECT_TRUE(std::isinf(band[0]));
}

}  // namespace
}  // namespace railsim::tools
