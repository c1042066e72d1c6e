// File: calibrate/diagnose/explanation.cpp
#include "calibrate/diagnose/explanation.hpp"

#include "calibrate/fit/faulted_design.hpp"
#include "sim/input_error.hpp"

#include <boost/math/tools/minima.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>

namespace railsim::calibrate::diagnose {
namespace {

using fit::Measurement;
using fit::MeasurementKind;
using models::ElementFault;
using models::FaultKind;

// The fitted scale's search interval: a link that keeps more than 90% of its rate is within what
// check accepts (calibrate/check/rdma_pair_check.hpp) and no fault; letting the fit go above it
// would have it explain noise.
constexpr double kLowestScale = 0.02;
constexpr double kHighestScale = 0.9;

// Whether the fault can change the measurement: it lies on the measurement's path. `crossed`:
// the switch cables the measurement's traffic crosses in the design (predict's).
bool touches(const ElementFault& f, const Measurement& m, const std::vector<std::string>& crossed) {
  if (f.kind == FaultKind::kSwitchCable) {
    return std::binary_search(crossed.begin(), crossed.end(), f.cable);
  }
  if (f.kind == FaultKind::kFewerUplinks || f.kind == FaultKind::kStaticEcmp ||
      f.kind == FaultKind::kEcmpDraw) {
    return !crossed.empty();
  }
  if (f.kind == FaultKind::kTopOfRack) {
    // Moves traffic between nodes onto the spines, whether the design's crosses them or not.
    return m.kind != MeasurementKind::kCollectiveTime || m.nodes > 1;
  }
  const bool collective = m.kind == MeasurementKind::kCollectiveTime;
  const bool its_nic =
      f.nic == m.nic || (f.kind == FaultKind::kCablesSwapped && f.other_nic == m.nic);
  if (!collective &&
      (f.kind == FaultKind::kGdrOff || f.kind == FaultKind::kNicOtherSocket || !its_nic)) {
    return false;  // perftest runs in host memory of its NIC's socket, over its own NIC
  }
  if (m.node_ids.empty()) {
    return f.node < (collective ? m.nodes : 2);
  }
  return std::find(m.node_ids.begin(), m.node_ids.end(), f.node) != m.node_ids.end();
}

// A NIC down cannot have carried an RDMA pair that was measured over it.
bool contradicted(const ElementFault& f, const Measurement& m) {
  return f.kind == FaultKind::kNicDown && m.kind != MeasurementKind::kCollectiveTime &&
         touches({FaultKind::kNicPort, f.node, f.nic, 1.0}, m, {});
}

double log_error(double measured, double predicted) {
  const double e = std::log(measured / predicted);
  return e * e;
}

// Whether any of the faults can change measurement i.
bool touched(const ExplanationContext& c, const Explanation& e, std::size_t i) {
  return std::any_of(e.faults.begin(), e.faults.end(), [&](const ElementFault& f) {
    return touches(f, c.measurements[i], c.crossed[i]);
  });
}

// Predicts row i under the faults into e.predicted; false, with SSE kImpossible, when it cannot
// run with them (the fault leaves it no way).
bool predict_row(const ExplanationContext& c,
                 const fit::FaultedDesign& faulty,
                 Explanation& e,
                 std::size_t i) {
  ++e.model_runs;
  try {
    e.predicted[i] =
        fit::predict(faulty.model, c.measurements[i], faulty.prepare, nullptr, &c.memo);
    return true;
  } catch (const sim::InputError&) {
    e.sse = kImpossible;
    return false;
  }
}

// The squared log errors of the rows `which` selects.
template <class Which>
double sse_of(const ExplanationContext& c, const Explanation& e, const Which& which) {
  double sse = 0.0;
  for (std::size_t i = 0; i < c.measurements.size(); ++i) {
    if (which(i)) {
      sse += log_error(c.measurements[i].measured, e.predicted[i]);
    }
  }
  return sse;
}

// Per measurement, whether it is one of `rows`.
std::vector<bool> row_mask(const ExplanationContext& c, const std::vector<std::size_t>& rows) {
  std::vector<bool> mask(c.measurements.size(), false);
  for (const std::size_t i : rows) {
    mask[i] = true;
  }
  return mask;
}

// Whether a measurement rules the faults out.
bool ruled_out(const Explanation& e, const Measurement& m) {
  return std::any_of(e.faults.begin(), e.faults.end(),
                     [&m](const ElementFault& f) { return contradicted(f, m); });
}

}  // namespace

Explanation screen(const ExplanationContext& c,
                   std::vector<ElementFault> faults,
                   const std::vector<std::size_t>& rows) {
  Explanation e{std::move(faults), c.healthy, 0.0, 0.0};
  if (std::any_of(c.measurements.begin(), c.measurements.end(),
                  [&e](const Measurement& m) { return ruled_out(e, m); })) {
    e.sse = kImpossible;
    return e;
  }
  const std::vector<bool> in_rows = row_mask(c, rows);
  const fit::FaultedDesign faulty = fit::with_faults(c.model, e.faults);
  for (const std::size_t i : rows) {
    if (touched(c, e, i) && !predict_row(c, faulty, e, i)) {
      return e;
    }
  }
  if (e.sse < kImpossible) {
    e.sse = sse_of(c, e, [&](std::size_t i) { return in_rows[i] || !touched(c, e, i); });
  }
  return e;
}

bool complete(const ExplanationContext& c,
              Explanation& screened,
              const std::vector<std::size_t>& rows,
              double bound) {
  if (!(screened.sse < kImpossible)) {
    return true;
  }
  const std::vector<bool> in_rows = row_mask(c, rows);
  // The screen's sum, also for an explanation stopped part-way before.
  screened.sse =
      sse_of(c, screened, [&](std::size_t i) { return in_rows[i] || !touched(c, screened, i); });
  std::vector<std::size_t> left;
  for (std::size_t i = 0; i < c.measurements.size(); ++i) {
    if (!in_rows[i] && touched(c, screened, i)) {
      left.push_back(i);
    }
  }
  std::stable_sort(left.begin(), left.end(), [&](std::size_t a, std::size_t b) {
    return c.measurements[a].size_bytes > c.measurements[b].size_bytes;
  });
  const fit::FaultedDesign faulty = fit::with_faults(c.model, screened.faults);
  for (std::size_t k = 0; k < left.size(); ++k) {
    if (!predict_row(c, faulty, screened, left[k])) {
      return true;
    }
    screened.sse += log_error(c.measurements[left[k]].measured, screened.predicted[left[k]]);
    if (screened.sse > bound && k + 1 < left.size()) {
      return false;
    }
  }
  // Summed in the rows' order, as explain() sums them, so that both give the same figure.
  screened.sse = sse_of(c, screened, [](std::size_t) { return true; });
  return true;
}

Explanation explain(const ExplanationContext& c, std::vector<ElementFault> faults) {
  std::vector<std::size_t> every(c.measurements.size());
  std::iota(every.begin(), every.end(), std::size_t{0});
  return screen(c, std::move(faults), every);
}

std::vector<std::size_t> screen_rows(const std::vector<Measurement>& measurements) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < measurements.size(); ++i) {
    const Measurement& m = measurements[i];
    if (m.kind != MeasurementKind::kCollectiveTime) {
      rows.push_back(i);
      continue;
    }
    const auto same_run = [&m](const Measurement& o) {
      return o.kind == m.kind && o.op == m.op && o.nodes == m.nodes &&
             o.gpus_per_node == m.gpus_per_node && o.node_ids == m.node_ids &&
             o.gpu_ids == m.gpu_ids && o.nccl_environment == m.nccl_environment;
    };
    const auto larger =
        std::find_if(measurements.begin(), measurements.end(), [&](const Measurement& o) {
          return same_run(o) &&
                 (o.size_bytes > m.size_bytes || (o.size_bytes == m.size_bytes && &o < &m));
        });
    if (larger == measurements.end()) {
      rows.push_back(i);  // the run's largest size, its first row of that size
    }
  }
  return rows;
}

bool is_rate(FaultKind kind) {
  return kind == FaultKind::kNicPort || kind == FaultKind::kNicPcie ||
         kind == FaultKind::kSwitchCable;
}

std::pair<double, double> fit_bracket(const std::vector<double>& scales, double scale) {
  std::vector<double> grid = scales;
  grid.push_back(kLowestScale);
  grid.push_back(kHighestScale);
  std::sort(grid.begin(), grid.end());
  const auto at =
      static_cast<std::size_t>(std::find(grid.begin(), grid.end(), scale) - grid.begin());
  return {grid[at == 0 ? 0 : at - 1], grid[std::min(at + 1, grid.size() - 1)]};
}

FittedScale fit_scale(const ExplanationContext& c, ElementFault f, double lo, double hi) {
  // The SSE is smooth in the scale, so Brent's parabolic steps reach the minimum in about eight
  // runs of the model (a golden-section search takes eighteen to the same precision).
  FittedScale fitted;
  fitted.explanation.sse = kImpossible;
  const auto sse_at = [&](double scale) {
    f.scale = scale;
    Explanation e = explain(c, {f});
    ++fitted.runs;
    fitted.model_runs += e.model_runs;
    const double sse = e.sse;
    if (sse < fitted.explanation.sse) {
      fitted.explanation = std::move(e);
    }
    return sse;
  };
  std::uintmax_t iterations = kFitRunLimit;
  boost::math::tools::brent_find_minima(sse_at, lo, hi, kFitBits, iterations);
  return fitted;
}

}  // namespace railsim::calibrate::diagnose
