// File: tests/calibrate/fit/least_squares_test.cpp
// The fitting engine on problems whose answers are known in closed form: straight lines (the
// ordinary least-squares estimates and their standard errors), an exponential decay, bounds
// that bind, a variable the data do not inform, and problems it must refuse.
#include "calibrate/fit/least_squares.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace railsim::calibrate::fit {
namespace {

// y = 2 + 3x at x = 0..5, with alternating +-0.1 errors (they sum to zero).
constexpr std::array<double, 6> kX = {0, 1, 2, 3, 4, 5};
constexpr std::array<double, 6> kY = {2.1, 4.9, 8.1, 10.9, 14.1, 16.9};

ResidualFunction line_residuals() {
  return [](const std::vector<double>& p) {
    std::vector<double> r;
    r.reserve(kX.size());
    for (std::size_t i = 0; i < kX.size(); ++i) {
      r.push_back(p[0] + p[1] * kX[i] - kY[i]);
    }
    return r;
  };
}

TEST(LeastSquares, LineMatchesOrdinaryLeastSquaresAndItsStandardErrors) {
  const std::vector<FitVariable> variables = {{"a", 0.0, -10.0, 10.0, 1.0, true},
                                              {"b", 0.0, -10.0, 10.0, 1.0, true}};
  const FitResult fit = fit_least_squares(variables, line_residuals());
  ASSERT_TRUE(fit.converged) << fit.message;
  EXPECT_TRUE(fit.linear);
  // By hand: x mean 2.5, Sxx = 17.5, Sxy = sum (x - 2.5) y = 52.2, so b = 52.2 / 17.5 =
  // 2.982857 and a = mean y - b x mean = 9.5 - 7.457143 = 2.042857.
  EXPECT_NEAR(fit.values[1], 52.2 / 17.5, 1e-9);
  EXPECT_NEAR(fit.values[0], 9.5 - 2.5 * 52.2 / 17.5, 1e-9);
  // Residual sum of squares by hand from those estimates; s^2 = SSR / (6 - 2).
  double ssr = 0.0;
  for (std::size_t i = 0; i < kX.size(); ++i) {
    const double e = kY[i] - (9.5 - 2.5 * 52.2 / 17.5) - 52.2 / 17.5 * kX[i];
    ssr += e * e;
  }
  const double s2 = ssr / 4.0;
  EXPECT_NEAR(fit.standard_errors[1], std::sqrt(s2 / 17.5), 1e-6);
  EXPECT_NEAR(fit.standard_errors[0], std::sqrt(s2 * (1.0 / 6.0 + 2.5 * 2.5 / 17.5)), 1e-6);
  // cov(a, b) = -x mean s^2 / Sxx.
  EXPECT_NEAR(fit.covariance[0][1], -2.5 * s2 / 17.5, 1e-6);
  EXPECT_NEAR(fit.rms_residual, std::sqrt(ssr / 6.0), 1e-9);
}

TEST(LeastSquares, NonLinearFlagSolvesTheSameLineByLevenbergMarquardt) {
  const std::vector<FitVariable> variables = {{"a", 0.0, -10.0, 10.0, 1.0, false},
                                              {"b", 1.0, -10.0, 10.0, 1.0, false}};
  const FitResult fit = fit_least_squares(variables, line_residuals());
  ASSERT_TRUE(fit.converged) << fit.message;
  EXPECT_FALSE(fit.linear);
  EXPECT_NEAR(fit.values[1], 52.2 / 17.5, 1e-5);
  EXPECT_NEAR(fit.values[0], 9.5 - 2.5 * 52.2 / 17.5, 1e-5);
}

TEST(LeastSquares, LinearFitClampsAnUpperBoundAndRefitsTheRest) {
  // Slope limited to 2.5: then a = mean(y - 2.5 x) = 9.5 - 6.25 = 3.25.
  const std::vector<FitVariable> variables = {{"a", 0.0, -10.0, 10.0, 1.0, true},
                                              {"b", 0.0, -10.0, 2.5, 1.0, true}};
  const FitResult fit = fit_least_squares(variables, line_residuals());
  ASSERT_TRUE(fit.converged);
  EXPECT_EQ(fit.status[1], VariableStatus::kAtBound);
  EXPECT_DOUBLE_EQ(fit.values[1], 2.5);
  EXPECT_NEAR(fit.values[0], 3.25, 1e-9);
  EXPECT_EQ(fit.standard_errors[1], 0.0);
  EXPECT_GT(fit.standard_errors[0], 0.0);
}

// y = 5 exp(-0.7 t), exact, at t = 0, 0.5, .. 4.5: residuals of A exp(-k t) against it.
ResidualFunction decay_residuals() {
  return [](const std::vector<double>& p) {
    std::vector<double> r;
    r.reserve(10);
    for (int i = 0; i < 10; ++i) {
      const double t = 0.5 * i;
      r.push_back(p[0] * std::exp(-p[1] * t) - 5.0 * std::exp(-0.7 * t));
    }
    return r;
  };
}

TEST(LeastSquares, ExponentialDecayRecoversItsParameters) {
  const FitResult fit = fit_least_squares(
      {{"A", 1.0, 0.0, 100.0, 1.0, false}, {"k", 0.1, 0.0, 10.0, 0.1, false}}, decay_residuals());
  ASSERT_TRUE(fit.converged) << fit.message;
  EXPECT_NEAR(fit.values[0], 5.0, 1e-5);
  EXPECT_NEAR(fit.values[1], 0.7, 1e-6);
  EXPECT_LT(fit.rms_residual, 1e-6);
}

TEST(LeastSquares, FitOutOfEvaluationsSaysItDidNotConverge) {
  // The same decay from far away, with a budget of 3 evaluations: Levenberg-Marquardt needs
  // more.
  const FitResult fit =
      fit_least_squares({{"A", 90.0, 0.0, 100.0, 1.0, false}, {"k", 9.0, 0.0, 10.0, 0.1, false}},
                        decay_residuals(), 3);
  EXPECT_FALSE(fit.converged);
  EXPECT_NE(fit.message.find("did not converge"), std::string::npos) << fit.message;
  EXPECT_EQ(fit.standard_errors[0], 0.0);  // no uncertainty for an unfinished fit
}

TEST(LeastSquares, NonLinearFitStopsOnABoundThatBinds) {
  // The decay, but k may not exceed 0.5: the best k is the bound itself.
  const FitResult fit = fit_least_squares(
      {{"A", 1.0, 0.0, 100.0, 1.0, false}, {"k", 0.1, 0.0, 0.5, 0.01, false}}, decay_residuals());
  EXPECT_NEAR(fit.values[1], 0.5, 1e-4);
  EXPECT_EQ(fit.status[1], VariableStatus::kAtBound);
  EXPECT_EQ(fit.status[0], VariableStatus::kFitted);
}

TEST(LeastSquares, VariableTheResidualsIgnoreIsNotInformedAndKeepsItsValue) {
  const std::vector<FitVariable> variables = {{"a", 0.0, -10.0, 10.0, 1.0, true},
                                              {"b", 0.0, -10.0, 10.0, 1.0, true},
                                              {"unused", 0.4, 0.0, 1.0, 0.1, false}};
  const FitResult fit = fit_least_squares(variables, line_residuals());
  ASSERT_TRUE(fit.converged);
  // Only a and b are fitted, so the linear path serves despite the non-linear bystander.
  EXPECT_TRUE(fit.linear);
  EXPECT_EQ(fit.status[2], VariableStatus::kNotInformed);
  EXPECT_DOUBLE_EQ(fit.values[2], 0.4);
  EXPECT_NEAR(fit.values[1], 52.2 / 17.5, 1e-9);
}

TEST(LeastSquares, CapFlatAtItsStartIsProbedAlongItsRangeAndFitted) {
  // r = min(x, 0.8) t - 0.5 t: at the start x = 1 another cap (0.8) binds and x moves nothing;
  // further down its range it binds, and 0.5 fits every row exactly.
  const ResidualFunction residuals = [](const std::vector<double>& p) {
    std::vector<double> r;
    for (const double t : {1.0, 2.0, 3.0}) {
      r.push_back(std::min(p[0], 0.8) * t - 0.5 * t);
    }
    return r;
  };
  const FitResult fit = fit_least_squares({{"x", 1.0, 0.0, 1.0, 0.01, false}}, residuals);
  ASSERT_TRUE(fit.converged) << fit.message;
  EXPECT_EQ(fit.status[0], VariableStatus::kFitted);
  EXPECT_NEAR(fit.values[0], 0.5, 1e-6);
}

TEST(LeastSquares, CollinearVariablesGetNoFiniteUncertainty) {
  // r = (a + b) - y: only the sum is determined.
  const ResidualFunction residuals = [](const std::vector<double>& p) {
    return std::vector<double>{p[0] + p[1] - 1.0, p[0] + p[1] - 1.2, p[0] + p[1] - 0.9};
  };
  const FitResult fit = fit_least_squares(
      {{"a", 0.0, -5.0, 5.0, 1.0, false}, {"b", 0.0, -5.0, 5.0, 1.0, false}}, residuals);
  EXPECT_NEAR(fit.values[0] + fit.values[1], (1.0 + 1.2 + 0.9) / 3.0, 1e-5);
  EXPECT_TRUE(std::isinf(fit.standard_errors[0]));
  // Raising a and lowering b as much leaves every residual: a correlation of -1.
  ASSERT_EQ(fit.confounded.size(), 1U);
  EXPECT_EQ(fit.confounded[0].first, 0U);
  EXPECT_EQ(fit.confounded[0].second, 1U);
  EXPECT_EQ(fit.confounded[0].correlation, -1.0);
  EXPECT_NE(fit.message.find("cannot separate a and b (correlation -1.000)"), std::string::npos)
      << fit.message;
}

TEST(LeastSquares, NearlyCollinearVariablesAreNamedWithTheCorrelationOfTheirEstimates) {
  // r = a u + b v - y with u = (1, 1, 1, 1) and v = (1, 1, 1, 1.1): the estimates of a linear
  // fit have the covariance s^2 (X^T X)^-1, whose correlation is -u.v / (|u| |v|)
  // = -4.1 / (2 sqrt(4.21)) = -0.99911.
  const ResidualFunction residuals = [](const std::vector<double>& p) {
    const std::vector<double> y = {1.0, 2.0, 0.5, 3.0};
    std::vector<double> r;
    for (std::size_t i = 0; i < y.size(); ++i) {
      r.push_back(p[0] + p[1] * (i == 3 ? 1.1 : 1.0) - y[i]);
    }
    return r;
  };
  const FitResult fit = fit_least_squares(
      {{"a", 0.0, -100.0, 100.0, 1.0, true}, {"b", 0.0, -100.0, 100.0, 1.0, true}}, residuals);
  ASSERT_TRUE(fit.converged) << fit.message;
  ASSERT_EQ(fit.confounded.size(), 1U);
  EXPECT_NEAR(fit.confounded[0].correlation, -4.1 / (2.0 * std::sqrt(4.21)), 1e-6);
  EXPECT_TRUE(std::isfinite(fit.standard_errors[0]));
  EXPECT_NE(fit.message.find("barely separate a and b (correlation -0.999)"), std::string::npos)
      << fit.message;
}

TEST(LeastSquares, TooFewRowsIsNotAConvergedFit) {
  const ResidualFunction one_row = [](const std::vector<double>& p) {
    return std::vector<double>{p[0] + p[1] - 1.0};
  };
  const FitResult fit = fit_least_squares(
      {{"a", 0.0, -5.0, 5.0, 1.0, true}, {"b", 0.0, -5.0, 5.0, 1.0, true}}, one_row);
  EXPECT_FALSE(fit.converged);
  EXPECT_EQ(fit.message, "1 rows cannot fit 2 variables");
}

TEST(LeastSquares, RefusesBoundsThatAreNotAnInterval) {
  EXPECT_THROW(fit_least_squares({{"a", 0.0, 1.0, 1.0, 0.1, true}}, line_residuals()),
               std::invalid_argument);
  EXPECT_THROW(fit_least_squares({{"a", 2.0, 0.0, 1.0, 0.1, true}}, line_residuals()),
               std::invalid_argument);
}

}  // namespace
}  // namespace railsim::calibrate::fit
