// File: calibrate/fit/least_squares.cpp
#include "calibrate/fit/least_squares.hpp"

#include <Eigen/Dense>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unsupported/Eigen/NonLinearOptimization>

namespace railsim::calibrate::fit {
namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

// A residual vector moved by less than this per `scale` of a variable does not inform it.
constexpr double kSensitivityFloor = 1e-9;

// Counts the calls and turns the residuals into an Eigen vector.
class Evaluator {
 public:
  explicit Evaluator(const ResidualFunction& function) : function_(function) {}

  VectorXd operator()(const std::vector<double>& values) {
    ++calls_;
    const std::vector<double> r = function_(values);
    return Eigen::Map<const VectorXd>(r.data(), static_cast<Index>(r.size()));
  }

  int calls() const { return calls_; }

 private:
  const ResidualFunction& function_;
  int calls_ = 0;
};

double step_of(const FitVariable& v) { return kStepFraction * v.scale; }

// d residuals / d x_j by a forward difference, backward where the step would leave the bounds.
VectorXd column(Evaluator& evaluate,
                const std::vector<FitVariable>& variables,
                std::vector<double> values,
                const VectorXd& at_values,
                std::size_t j) {
  const FitVariable& v = variables[j];
  double h = step_of(v);
  if (values[j] + h > v.upper) {
    h = -h;
  }
  values[j] += h;
  return (evaluate(values) - at_values) / h;
}

// The bound transform of the non-linear fit: u in R maps onto [lower, upper].
double to_bounded(const FitVariable& v, double u) {
  return v.lower + (v.upper - v.lower) * 0.5 * (1.0 + std::sin(u));
}

double to_free(const FitVariable& v, double x) {
  const double t = 2.0 * (x - v.lower) / (v.upper - v.lower) - 1.0;
  return std::asin(std::clamp(t, -1.0, 1.0));
}

// Levenberg-Marquardt's view of the fit: the free variables in the unbounded coordinates u.
struct BoundedFunctor {
  using Scalar = double;
  using JacobianType = MatrixXd;

  Evaluator& evaluate;
  const std::vector<FitVariable>& variables;
  std::vector<double> base;       // all variables; the free ones overwritten from u
  std::vector<std::size_t> free;  // indices of the variables being fitted
  Index rows = 0;

  Index inputs() const { return static_cast<Index>(free.size()); }

  // NOLINTNEXTLINE(readability-identifier-naming): the name Eigen's minimiser calls.
  Index values() const { return rows; }

  std::vector<double> at(const VectorXd& u) const {
    std::vector<double> x = base;
    for (std::size_t k = 0; k < free.size(); ++k) {
      x[free[k]] = to_bounded(variables[free[k]], u[static_cast<Index>(k)]);
    }
    return x;
  }

  int operator()(const VectorXd& u, VectorXd& residuals) const {
    residuals = evaluate(at(u));
    return 0;
  }

  // Forward differences in u, with the step a variable's finite-difference step maps to.
  int df(const VectorXd& u, MatrixXd& jacobian) const {
    const VectorXd r = evaluate(at(u));
    jacobian.resize(rows, inputs());
    for (Index k = 0; k < inputs(); ++k) {
      const FitVariable& v = variables[free[static_cast<std::size_t>(k)]];
      const double h = 2.0 * step_of(v) / (v.upper - v.lower);
      VectorXd moved = u;
      moved[k] += h;
      jacobian.col(k) = (evaluate(at(moved)) - r) / h;
    }
    return 0;
  }
};

void check(const FitVariable& v) {
  if (!(std::isfinite(v.lower) && std::isfinite(v.upper) && v.lower < v.upper)) {
    throw std::invalid_argument(
        fmt::format("{}: bounds [{}, {}] are not a finite interval", v.name, v.lower, v.upper));
  }
  if (!(v.initial >= v.lower && v.initial <= v.upper)) {
    throw std::invalid_argument(
        fmt::format("{}: initial {} outside [{}, {}]", v.name, v.initial, v.lower, v.upper));
  }
  if (!(v.scale > 0.0) || 2.0 * step_of(v) >= v.upper - v.lower) {
    throw std::invalid_argument(
        fmt::format("{}: scale {} does not fit its bounds", v.name, v.scale));
  }
}

// Linear least squares over `free`, clamping a variable that leaves its bounds and solving again
// without it until every solution is inside (an active set, grown one bound at a time).
void solve_linear(Evaluator& evaluate,
                  const std::vector<FitVariable>& variables,
                  const MatrixXd& jacobian,
                  std::vector<std::size_t> free,
                  FitResult& result) {
  std::vector<double> x = result.values;
  while (!free.empty()) {
    const VectorXd r = evaluate(x);
    MatrixXd a(jacobian.rows(), static_cast<Index>(free.size()));
    for (std::size_t k = 0; k < free.size(); ++k) {
      a.col(static_cast<Index>(k)) = jacobian.col(static_cast<Index>(free[k]));
    }
    const VectorXd delta = a.colPivHouseholderQr().solve(-r);
    std::vector<double> next = x;
    std::size_t worst = free.size();
    double worst_excess = 0.0;
    for (std::size_t k = 0; k < free.size(); ++k) {
      const FitVariable& v = variables[free[k]];
      next[free[k]] += delta[static_cast<Index>(k)];
      const double excess =
          std::max(v.lower - next[free[k]], next[free[k]] - v.upper) / (v.upper - v.lower);
      if (excess > worst_excess) {
        worst_excess = excess;
        worst = k;
      }
    }
    if (worst == free.size()) {
      x = next;
      break;
    }
    const std::size_t j = free[worst];
    x[j] = std::clamp(next[j], variables[j].lower, variables[j].upper);
    result.status[j] = VariableStatus::kAtBound;
    free.erase(free.begin() + static_cast<std::ptrdiff_t>(worst));
  }
  result.values = x;
  result.converged = true;
  result.message = "solved as linear least squares";
}

void solve_non_linear(Evaluator& evaluate,
                      const std::vector<FitVariable>& variables,
                      const std::vector<std::size_t>& free,
                      Index rows,
                      int max_evaluations,
                      FitResult& result) {
  BoundedFunctor functor{evaluate, variables, result.values, free, rows};
  VectorXd u(static_cast<Index>(free.size()));
  for (std::size_t k = 0; k < free.size(); ++k) {
    const FitVariable& v = variables[free[k]];
    // Off the bound by a little: sin u has no slope there, and the fit could not leave it.
    const double margin = 1e-3 * (v.upper - v.lower);
    u[static_cast<Index>(k)] =
        to_free(v, std::clamp(result.values[free[k]], v.lower + margin, v.upper - margin));
  }
  Eigen::LevenbergMarquardt<BoundedFunctor> minimiser(functor);
  minimiser.parameters.maxfev = max_evaluations > 0
                                    ? max_evaluations
                                    : kEvaluationsPerVariable * static_cast<Index>(free.size() + 1);
  minimiser.parameters.ftol = 1e-10;
  minimiser.parameters.xtol = 1e-10;
  const Eigen::LevenbergMarquardtSpace::Status status = minimiser.minimize(u);
  result.values = functor.at(u);
  using Eigen::LevenbergMarquardtSpace::Status;
  switch (status) {
    case Status::RelativeReductionTooSmall:
    case Status::RelativeErrorTooSmall:
    case Status::RelativeErrorAndReductionTooSmall:
    case Status::CosinusTooSmall:
    case Status::FtolTooSmall:
    case Status::XtolTooSmall:
    case Status::GtolTooSmall:
      result.converged = true;
      result.message =
          fmt::format("Levenberg-Marquardt converged in {} iterations", minimiser.iter);
      return;
    case Status::TooManyFunctionEvaluation:
      result.message = fmt::format(
          "Levenberg-Marquardt did not converge: {} evaluations without reaching the tolerance",
          minimiser.nfev);
      return;
    default:
      result.message =
          fmt::format("Levenberg-Marquardt stopped (status {})", static_cast<int>(status));
      return;
  }
}

// s^2 (J^T J)^-1 over the fitted variables, J taken afresh at the solution.
void estimate_uncertainty(Evaluator& evaluate,
                          const std::vector<FitVariable>& variables,
                          const VectorXd& r,
                          FitResult& result) {
  const auto n = variables.size();
  std::vector<std::size_t> fitted;
  for (std::size_t j = 0; j < n; ++j) {
    const FitVariable& v = variables[j];
    const double margin = 1e-6 * (v.upper - v.lower);
    if (result.status[j] == VariableStatus::kFitted &&
        (result.values[j] <= v.lower + margin || result.values[j] >= v.upper - margin)) {
      result.status[j] = VariableStatus::kAtBound;
    }
    if (result.status[j] == VariableStatus::kFitted) {
      fitted.push_back(j);
    }
  }
  if (fitted.empty()) {
    return;
  }
  // Columns per `scale` of their variable, so that a latency in us and an efficiency near 1 are
  // judged separable or not on one footing; unscaled again below. A variable the residuals are
  // flat in at the solution (moved, then overtaken by another bottleneck) has no finite error
  // and stays out of the others' covariance.
  const double infinity = std::numeric_limits<double>::infinity();
  std::vector<VectorXd> columns;
  std::vector<std::size_t> kept;
  for (const std::size_t j : fitted) {
    VectorXd c = column(evaluate, variables, result.values, r, j) * variables[j].scale;
    if (c.norm() < kSensitivityFloor) {
      result.standard_errors[j] = infinity;
      result.message +=
          fmt::format("; the residuals are flat in {} at the solution", variables[j].name);
    } else {
      columns.push_back(std::move(c));
      kept.push_back(j);
    }
  }
  fitted = kept;
  if (fitted.empty()) {
    return;
  }
  MatrixXd jacobian(r.size(), static_cast<Index>(fitted.size()));
  VectorXd scales(static_cast<Index>(fitted.size()));
  for (std::size_t k = 0; k < fitted.size(); ++k) {
    scales[static_cast<Index>(k)] = variables[fitted[k]].scale;
    jacobian.col(static_cast<Index>(k)) = columns[k];
  }
  const auto dof = r.size() - static_cast<Index>(fitted.size());
  const MatrixXd normal = jacobian.transpose() * jacobian;
  const Eigen::FullPivLU<MatrixXd> lu(normal);
  const bool separable = lu.rank() == normal.rows();
  if (!separable || dof <= 0) {
    for (std::size_t j : fitted) {
      result.standard_errors[j] = infinity;
    }
    result.message += separable ? "; as many variables as rows: no uncertainty"
                                : "; the data cannot separate the fitted variables";
    return;
  }
  const MatrixXd cov = scales.asDiagonal() * lu.inverse() * scales.asDiagonal() *
                       (r.squaredNorm() / static_cast<double>(dof));
  for (std::size_t a = 0; a < fitted.size(); ++a) {
    for (std::size_t b = 0; b < fitted.size(); ++b) {
      result.covariance[fitted[a]][fitted[b]] = cov(static_cast<Index>(a), static_cast<Index>(b));
    }
    result.standard_errors[fitted[a]] =
        std::sqrt(cov(static_cast<Index>(a), static_cast<Index>(a)));
  }
}

}  // namespace

FitResult fit_least_squares(const std::vector<FitVariable>& variables,
                            const ResidualFunction& residuals,
                            int max_evaluations) {
  for (const FitVariable& v : variables) {
    check(v);
  }
  Evaluator evaluate(residuals);
  FitResult result;
  result.values.reserve(variables.size());
  for (const FitVariable& v : variables) {
    result.values.push_back(v.initial);
  }
  result.status.assign(variables.size(), VariableStatus::kFitted);

  // Which variables the data inform, from the Jacobian at the start.
  const VectorXd r0 = evaluate(result.values);
  MatrixXd jacobian(r0.size(), static_cast<Index>(variables.size()));
  std::vector<std::size_t> free;
  bool all_linear = true;
  for (std::size_t j = 0; j < variables.size(); ++j) {
    jacobian.col(static_cast<Index>(j)) = column(evaluate, variables, result.values, r0, j);
    if (jacobian.col(static_cast<Index>(j)).norm() * variables[j].scale < kSensitivityFloor) {
      result.status[j] = VariableStatus::kNotInformed;
    } else {
      free.push_back(j);
      all_linear = all_linear && variables[j].linear;
    }
  }
  if (free.empty()) {
    result.message = "no variable is informed by the data";
  } else if (r0.size() < static_cast<Index>(free.size())) {
    result.message = fmt::format("{} rows cannot fit {} variables", r0.size(), free.size());
  } else if (all_linear) {
    result.linear = true;
    solve_linear(evaluate, variables, jacobian, free, result);
  } else {
    solve_non_linear(evaluate, variables, free, r0.size(), max_evaluations, result);
  }
  const VectorXd r = evaluate(result.values);
  result.residuals.assign(r.data(), r.data() + r.size());
  result.rms_residual =
      r.size() > 0 ? std::sqrt(r.squaredNorm() / static_cast<double>(r.size())) : 0.0;
  const auto n = variables.size();
  result.covariance.assign(n, std::vector<double>(n, 0.0));
  result.standard_errors.assign(n, 0.0);
  if (result.converged) {
    estimate_uncertainty(evaluate, variables, r, result);
  }
  result.evaluations = evaluate.calls();
  return result;
}

}  // namespace railsim::calibrate::fit
