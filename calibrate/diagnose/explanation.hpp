// File: calibrate/diagnose/explanation.hpp
// One explanation of a cluster's measurements: a set of element faults (models/fault) put into
// the design, the measurements they can change predicted again, and the fit, the sum of squared
// log errors over all of them. A fault changes only the measurements that run through it: an
// RDMA pair through its own NIC's elements, a collective through those of its nodes, either
// through the switch cables its traffic crosses in the design.
#pragma once

#include "calibrate/fit/measurements.hpp"
#include "calibrate/fit/model_parameters.hpp"
#include "models/collective/recurrence_memo.hpp"
#include "models/fault/element_fault.hpp"

#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace railsim::calibrate::diagnose {

// The SSE of an explanation the measurements rule out, or that leaves one of them no way to run.
inline constexpr double kImpossible = std::numeric_limits<double>::infinity();

// The fitted scale's precision (fit_scale): Brent's method stops once the scale is known to
// within 2^(1 - kFitBits) of itself, 0.01% (a scale's rates move every prediction by less).
inline constexpr int kFitBits = 14;

// The most iterations of one fit, a model run each: Brent's method takes about eight here; this
// only bounds a search that would not converge.
inline constexpr int kFitRunLimit = 40;

struct Explanation {
  std::vector<models::ElementFault> faults;  // none: the design as it is
  std::vector<double> predicted;             // per measurement, in its unit
  double sse = 0.0;                          // sum of squared ln(measured / predicted)
  double criterion = 0.0;                    // n ln(SSE / n) + 2k ln p
  // Explanations of one group predict every measurement within 1% of each other, so the
  // measurements cannot tell them apart (a cable at half rate and its NIC's PCIe link trained
  // down to the same rate); groups are numbered from 0, the best.
  int group = 0;
  // The model runs its predictions took, one per measurement predicted under its faults: what
  // the explanation cost (diagnose's cost per explanation).
  int model_runs = 0;
};

// What every explanation of one diagnosis is measured against.
struct ExplanationContext {
  const fit::CalibratedModel& model;
  const std::vector<fit::Measurement>& measurements;
  const std::vector<double>& healthy;                    // the design's prediction of each
  const std::vector<std::vector<std::string>>& crossed;  // per measurement, as predict gives
  // Shared by every prediction of the diagnosis: explanations that leave a channel at the paces
  // another gave it are timed once.
  models::RecurrenceMemo& memo;
};

// The faults' predictions and SSE (criterion and group left to the ranking); SSE kImpossible
// when a measurement contradicts them (an RDMA pair measured over a NIC that is down) or cannot
// run with them.
Explanation explain(const ExplanationContext& context, std::vector<models::ElementFault> faults);

// The rows a screen predicts (diagnose's bound, fault_diagnosis.hpp): the largest size of each
// collective run (its op, node count, GPUs per node and placement), where a rate fault shows
// most, and every RDMA row.
std::vector<std::size_t> screen_rows(const std::vector<fit::Measurement>& measurements);

// explain() on `rows` only: the other rows keep the design's predictions, and `sse` is a lower
// bound on the explanation's: the squared errors of `rows` and of the rows the faults cannot
// touch, every other row adding at least 0. kImpossible as explain() gives it.
Explanation screen(const ExplanationContext& context,
                   std::vector<models::ElementFault> faults,
                   const std::vector<std::size_t>& rows);

// A screened explanation made whole: every row the faults touch predicted, and its SSE. The rows
// run largest size first, where a rate fault shows most and a run costs least (bandwidth-bound
// pipelines skip slice sharing); once the SSE of the rows known passes `bound` with rows still to
// predict, it stops there and returns false, `sse` that partial sum: still a lower bound, and
// above `bound`.
bool complete(const ExplanationContext& context,
              Explanation& screened,
              const std::vector<std::size_t>& rows,
              double bound = kImpossible);

// Whether faults of the kind are a rate (a port, PCIe link or switch cable at a scale), whose
// scale the diagnosis fits.
bool is_rate(models::FaultKind kind);

// The interval around grid scale `scale` of `scales` that the fit searches: to the neighbouring
// grid scales, or to the bounds of what counts as a fault.
std::pair<double, double> fit_bracket(const std::vector<double>& scales, double scale);

// A rate fault at its fitted scale (SSE kImpossible where every scale tried was), and what the
// fit took.
struct FittedScale {
  Explanation explanation;
  int runs = 0;        // explanations tried
  int model_runs = 0;  // and the model runs they took
};

// The single rate fault at the scale in [lo, hi] that minimises its SSE: Brent's method
// (boost::math::tools::brent_find_minima), to kFitBits.
FittedScale fit_scale(const ExplanationContext& context,
                      models::ElementFault fault,
                      double lo,
                      double hi);

}  // namespace railsim::calibrate::diagnose
