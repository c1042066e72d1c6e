// File: calibrate/diagnose/explanation.cpp
#include "calibrate/diagnose/explanation.hpp"

#include "calibrate/fit/faulted_design.hpp"
#include "sim/input_error.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

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

}  // namespace

Explanation explain(const ExplanationContext& c, std::vector<ElementFault> faults) {
  Explanation e{std::move(faults), c.healthy, 0.0, 0.0};
  const fit::FaultedDesign faulty = fit::with_faults(c.model, e.faults);
  for (std::size_t i = 0; i < c.measurements.size(); ++i) {
    const Measurement& m = c.measurements[i];
    if (std::any_of(e.faults.begin(), e.faults.end(),
                    [&m](const ElementFault& f) { return contradicted(f, m); })) {
      e.sse = kImpossible;
      return e;
    }
    if (std::none_of(e.faults.begin(), e.faults.end(),
                     [&](const ElementFault& f) { return touches(f, m, c.crossed[i]); })) {
      continue;  // the design's own prediction stands
    }
    try {
      e.predicted[i] = fit::predict(faulty.model, m, faulty.prepare);
    } catch (const sim::InputError&) {
      e.sse = kImpossible;  // the fault leaves the measurement no way to run
      return e;
    }
  }
  for (std::size_t i = 0; i < c.measurements.size(); ++i) {
    e.sse += log_error(c.measurements[i].measured, e.predicted[i]);
  }
  return e;
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

Explanation fit_scale(const ExplanationContext& c, ElementFault f, double lo, double hi) {
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  const auto at = [&](double scale) {
    f.scale = scale;
    return explain(c, {f});
  };
  double x1 = hi - ratio * (hi - lo);
  double x2 = lo + ratio * (hi - lo);
  Explanation e1 = at(x1);
  Explanation e2 = at(x2);
  for (int i = 0; i < kFitIterations; ++i) {
    if (e1.sse <= e2.sse) {
      hi = x2;
      x2 = x1;
      e2 = std::move(e1);
      x1 = hi - ratio * (hi - lo);
      e1 = at(x1);
    } else {
      lo = x1;
      x1 = x2;
      e1 = std::move(e2);
      x2 = lo + ratio * (hi - lo);
      e2 = at(x2);
    }
  }
  return e1.sse <= e2.sse ? e1 : e2;
}

}  // namespace railsim::calibrate::diagnose
