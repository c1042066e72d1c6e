// File: calibrate/fit/least_squares.cpp
#include "calibrate/fit/least_squares.hpp"

#include <Eigen/Dense>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <unsupported/Eigen/NonLinearOptimization>

namespace railsim::calibrate::fit {
namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

// A residual vector moved by less than this per `scale` of a variable does not inform it.
constexpr double kSensitivityFloor = 1e-9;

// A pivot of the least-squares matrices below this share of the largest counts as zero: columns
// that differ by rounding alone (two latencies every row adds in the same proportion) are
// collinear, not separable by 1e-16.
constexpr double kRankTolerance = 1e-9;

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
    // Columns per `scale` of their variable, as in estimate_uncertainty. Where some are
    // collinear the solve takes the least change that fits (the decomposition counts its rank
    // with the threshold set before it runs); estimate_uncertainty names them.
    MatrixXd a(jacobian.rows(), static_cast<Index>(free.size()));
    for (std::size_t k = 0; k < free.size(); ++k) {
      a.col(static_cast<Index>(k)) =
          jacobian.col(static_cast<Index>(free[k])) * variables[free[k]].scale;
    }
    Eigen::CompleteOrthogonalDecomposition<MatrixXd> cod(a.rows(), a.cols());
    cod.setThreshold(kRankTolerance);
    cod.compute(a);
    const VectorXd change = cod.solve(-r);
    std::vector<double> next = x;
    std::size_t worst = free.size();
    double worst_excess = 0.0;
    for (std::size_t k = 0; k < free.size(); ++k) {
      const FitVariable& v = variables[free[k]];
      next[free[k]] += change[static_cast<Index>(k)] * v.scale;
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

// The pairs of variables that the directions of `kernel` (columns, over the variables `fitted`
// lists) move together: a change along one leaves the residuals as they are, so each pair's
// estimates are fully correlated, positively where the direction moves both the same way.
std::vector<Confounding> null_space_pairs(const MatrixXd& kernel,
                                          const std::vector<std::size_t>& fitted) {
  constexpr double kPart = 1e-6;  // of the direction's largest component: not rounding noise
  std::vector<Confounding> pairs;
  for (Index d = 0; d < kernel.cols(); ++d) {
    const VectorXd direction = kernel.col(d);
    const double largest = direction.cwiseAbs().maxCoeff();
    for (Index a = 0; a < direction.size(); ++a) {
      for (Index b = a + 1; b < direction.size(); ++b) {
        if (std::abs(direction[a]) > kPart * largest && std::abs(direction[b]) > kPart * largest) {
          const Confounding pair{fitted[static_cast<std::size_t>(a)],
                                 fitted[static_cast<std::size_t>(b)],
                                 direction[a] * direction[b] > 0.0 ? 1.0 : -1.0};
          const bool known = std::any_of(pairs.begin(), pairs.end(), [&](const Confounding& p) {
            return p.first == pair.first && p.second == pair.second;
          });
          if (!known) {
            pairs.push_back(pair);
          }
        }
      }
    }
  }
  std::sort(pairs.begin(), pairs.end(), [](const Confounding& x, const Confounding& y) {
    return std::pair(x.first, x.second) < std::pair(y.first, y.second);
  });
  return pairs;
}

// "a and b (correlation -1.000), c and d (correlation 0.995)".
std::string pair_names(const std::vector<FitVariable>& variables,
                       const std::vector<Confounding>& pairs) {
  std::string text;
  for (const Confounding& p : pairs) {
    text += fmt::format("{}{} and {} (correlation {:+.3f})", text.empty() ? "" : ", ",
                        variables[p.first].name, variables[p.second].name, p.correlation);
  }
  return text;
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
  Eigen::FullPivLU<MatrixXd> lu(normal);
  lu.setThreshold(kRankTolerance);
  const bool separable = lu.rank() == normal.rows();
  if (!separable || dof <= 0) {
    for (std::size_t j : fitted) {
      result.standard_errors[j] = infinity;
    }
    if (separable) {
      result.message += "; as many variables as rows: no uncertainty";
      return;
    }
    result.confounded = null_space_pairs(lu.kernel(), fitted);
    result.message += "; the data cannot separate " + pair_names(variables, result.confounded);
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
  for (std::size_t a = 0; a < fitted.size(); ++a) {
    for (std::size_t b = a + 1; b < fitted.size(); ++b) {
      const auto i = static_cast<Index>(a);
      const auto k = static_cast<Index>(b);
      const double correlation = cov(i, k) / std::sqrt(cov(i, i) * cov(k, k));
      if (std::abs(correlation) >= kConfoundedCorrelation) {
        result.confounded.push_back({fitted[a], fitted[b], correlation});
      }
    }
  }
  if (!result.confounded.empty()) {
    result.message += "; the data barely separate " + pair_names(variables, result.confounded);
  }
}

// One fit from `start`: the variables the residuals move there are fitted, the others left out
// as not informed.
FitResult fit_from(Evaluator& evaluate,
                   const std::vector<FitVariable>& variables,
                   std::vector<double> start,
                   int max_evaluations) {
  FitResult result;
  result.values = std::move(start);
  result.status.assign(variables.size(), VariableStatus::kFitted);
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
  return result;
}

// Fractions of the way from a variable's value towards each of its bounds that are probed.
constexpr std::array<double, 4> kProbeFractions = {0.125, 0.25, 0.5, 0.75};

// A non-linear variable the residuals are flat in at the start may still move them elsewhere in
// its bounds: an efficiency that caps a rate moves nothing while another bottleneck binds, and
// everything once it is the lower (a fabric's uplinks at the design's line rate, slower in the
// measurements). Each variable `fit` left out so is tried along its range, the others at the
// fit's values (one tried before another could take over what that one explains: a NIC's rate
// slowed to a fabric's), and set in `probed` to its try with the least sum of squares, where
// that is below the fit's. Whether any was. (An affine variable flat at one value is flat at
// all.)
bool probe_flat(Evaluator& evaluate,
                const std::vector<FitVariable>& variables,
                const FitResult& fit,
                std::vector<double>& probed) {
  bool moved = false;
  const double fitted_squares =
      std::inner_product(fit.residuals.begin(), fit.residuals.end(), fit.residuals.begin(), 0.0);
  for (std::size_t j = 0; j < variables.size(); ++j) {
    const FitVariable& v = variables[j];
    if (v.linear || fit.status[j] != VariableStatus::kNotInformed) {
      continue;
    }
    double least = fitted_squares;
    std::vector<double> best;
    VectorXd at_best;
    for (const double bound : {v.lower, v.upper}) {
      for (const double fraction : kProbeFractions) {
        std::vector<double> tried = fit.values;
        tried[j] = fit.values[j] + fraction * (bound - fit.values[j]);
        if (tried[j] == fit.values[j]) {
          break;  // at that bound already
        }
        VectorXd at_tried = evaluate(tried);
        if (at_tried.squaredNorm() < least) {
          least = at_tried.squaredNorm();
          best = std::move(tried);
          at_best = std::move(at_tried);
        }
      }
    }
    // Only where it binds there: a variable that moves the residuals in steps (a latency the
    // tuner's choice turns on) would be left flat, at a value no fit chose.
    if (!best.empty() &&
        column(evaluate, variables, best, at_best, j).norm() * v.scale >= kSensitivityFloor) {
      probed[j] = best[j];
      moved = true;
    }
  }
  return moved;
}

}  // namespace

FitResult fit_least_squares(const std::vector<FitVariable>& variables,
                            const ResidualFunction& residuals,
                            int max_evaluations) {
  for (const FitVariable& v : variables) {
    check(v);
  }
  Evaluator evaluate(residuals);
  std::vector<double> initial;
  initial.reserve(variables.size());
  for (const FitVariable& v : variables) {
    initial.push_back(v.initial);
  }
  FitResult result = fit_from(evaluate, variables, std::move(initial), max_evaluations);
  // A second fit where a variable left out as flat fits better somewhere else in its range; it
  // stands where it converges and ends better than the first (or the first had nothing to fit).
  std::vector<double> probed = result.values;
  if (probe_flat(evaluate, variables, result, probed)) {
    FitResult second = fit_from(evaluate, variables, probed, max_evaluations);
    // A variable left out again must hold the value the first fit had.
    bool consistent = true;
    for (std::size_t j = 0; j < variables.size(); ++j) {
      consistent = consistent && (second.status[j] != VariableStatus::kNotInformed ||
                                  probed[j] == result.values[j]);
    }
    if (second.converged && consistent &&
        (!result.converged || second.rms_residual < result.rms_residual)) {
      result = std::move(second);
    }
  }
  result.evaluations = evaluate.calls();
  return result;
}

}  // namespace railsim::calibrate::fit
