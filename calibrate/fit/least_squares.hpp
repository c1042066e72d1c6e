// File: calibrate/fit/least_squares.hpp
// Bounded least squares, the engine of calibration: find the variables that minimise the sum of
// squared residuals, each variable kept within its bounds, and say how well the data pin them.
//
// Variables the residuals are affine in (a latency added to every measured time) are solved as
// linear least squares, in one complete orthogonal decomposition; any other set (an efficiency
// that divides a transfer time, a rate that caps it) by Levenberg-Marquardt (Eigen's MINPACK
// port). Bounds are kept by clamping in the linear case and, in the non-linear one, by the
// transform x = lower + (upper - lower)(1 + sin u) / 2, so the minimiser never leaves them. The
// Jacobian is taken by finite differences: the residuals come from the simulator, which has no
// derivatives.
//
// A variable the residuals do not move at the start (a PCIe efficiency when the NIC is the
// bottleneck of every measured row) is not informed by the data: it keeps its initial value and
// is left out of the fit rather than drifting. Such a variable that is not affine may still bind
// elsewhere in its bounds (a fabric's uplinks slower than the design's line rate): it is tried
// along its range after the fit, and a second fit from where it binds and fits better stands if
// it ends better than the first. The uncertainty of the others is the usual
// s^2 (J^T J)^-1 at the solution, s^2 = sum of squares / (rows - fitted variables); variables
// whose estimates the data tie together (a NIC's latency and a switch's, when every row crosses
// the same switches) are named as confounded, pair by pair.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace railsim::calibrate::fit {

struct FitVariable {
  std::string name;
  double initial = 0.0;
  double lower = 0.0;  // both bounds finite, lower < upper
  double upper = 1.0;
  double scale = 1.0;   // typical size of a change worth resolving: finite-difference steps
                        // are kStepFraction of it
  bool linear = false;  // the residuals are affine in this variable
};

// Residuals at the given values (one per variable, in order); always the same count.
using ResidualFunction = std::function<std::vector<double>(const std::vector<double>&)>;

enum class VariableStatus {
  kFitted,       // moved by the fit, with an uncertainty
  kAtBound,      // the best fit lies on a bound: the value is a limit, without an uncertainty
  kNotInformed,  // the residuals do not depend on it: kept at its initial value
};

// Two fitted variables the data move together: the correlation of their estimates (+-1 where
// the data cannot separate them at all: a change of one the other undoes).
struct Confounding {
  std::size_t first = 0;  // indices into the variables, first < second
  std::size_t second = 0;
  double correlation = 0.0;
};

// Estimates correlated beyond this are reported as confounded.
inline constexpr double kConfoundedCorrelation = 0.99;

struct FitResult {
  bool linear = false;     // solved as linear least squares
  bool converged = false;  // false: `message` says why; the values are the last iterate
  std::string message;
  std::vector<double> values;
  std::vector<double> standard_errors;  // 1 sigma; 0 unless kFitted; infinite when the data
                                        // cannot separate the variable from another
  std::vector<VariableStatus> status;
  std::vector<std::vector<double>> covariance;  // of the values, zero outside kFitted ones
  std::vector<Confounding> confounded;          // pairs of kFitted variables, in index order
  std::vector<double> residuals;                // at `values`
  double rms_residual = 0.0;
  int evaluations = 0;  // calls of the residual function
};

// Finite-difference step as a fraction of FitVariable::scale.
inline constexpr double kStepFraction = 1e-3;

// Levenberg-Marquardt's budget of residual evaluations (its own steps, not the Jacobian's) per
// fitted variable plus one; a fit that needs more stops and says it did not converge.
inline constexpr int kEvaluationsPerVariable = 60;

// Throws std::invalid_argument for variables with empty or infinite bounds or an initial value
// outside them. `max_evaluations` > 0 replaces the budget above (tests use a small one).
FitResult fit_least_squares(const std::vector<FitVariable>& variables,
                            const ResidualFunction& residuals,
                            int max_evaluations = 0);

}  // namespace railsim::calibrate::fit
