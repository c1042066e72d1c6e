// File: calibrate/diagnose/fault_diagnosis.cpp
#include "calibrate/diagnose/fault_diagnosis.hpp"

#include "calibrate/diagnose/fault_space.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <utility>

namespace railsim::calibrate::diagnose {
namespace {

using fit::CalibratedModel;
using fit::MeasurementSet;
using models::ElementFault;

// Explanations whose predictions all agree within 1% cannot be told apart by measurements whose
// noise is of that order (perftest's run-to-run spread is ~0.5%, nccl-tests' ~1%).
constexpr double kEquivalentLogError = 0.01;

// Runs `work(i)` for i in [0, count) with the options' loop; results go by index, so the
// outcome does not depend on its order or threads.
void for_each_index(std::size_t count,
                    const DiagnosisOptions& options,
                    const std::function<void(std::size_t)>& work) {
  if (options.for_each) {
    options.for_each(count, work);
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    work(i);
  }
}

// What the design predicts: per measurement kept, the switch cables its traffic crosses; and
// every cable some measurement crosses, sorted, once each.
struct DesignTraffic {
  std::vector<std::vector<std::string>> crossed;
  std::vector<std::string> cables;
};

// The design's own prediction of each measurement into `d`; one it cannot run is set aside
// with a note.
DesignTraffic predict_design(const CalibratedModel& model,
                             const MeasurementSet& set,
                             const DiagnosisOptions& options,
                             Diagnosis& d) {
  std::vector<std::optional<double>> as_designed(set.rows.size());
  std::vector<std::vector<std::string>> crossed_by_row(set.rows.size());
  std::vector<std::string> why(set.rows.size());
  for_each_index(set.rows.size(), options, [&](std::size_t i) {
    try {
      as_designed[i] = fit::predict(model, set.rows[i], {}, &crossed_by_row[i]);
    } catch (const sim::InputError& e) {
      why[i] = e.what();
    }
  });
  DesignTraffic traffic;
  for (std::size_t i = 0; i < set.rows.size(); ++i) {
    if (as_designed[i]) {
      d.measurements.push_back(set.rows[i]);
      d.design.push_back(*as_designed[i]);
      traffic.cables.insert(traffic.cables.end(), crossed_by_row[i].begin(),
                            crossed_by_row[i].end());
      traffic.crossed.push_back(std::move(crossed_by_row[i]));
    } else {
      d.notes.push_back(fmt::format("{}: not used: {}", set.rows[i].source, why[i]));
    }
  }
  if (d.measurements.empty()) {
    throw sim::InputError(d.notes.empty()
                              ? std::string("nothing to diagnose: no measurements")
                              : fmt::format("nothing to diagnose: the model runs none of the "
                                            "measurements ({} set aside, the first {})",
                                            d.notes.size(), d.notes.front()));
  }
  std::sort(traffic.cables.begin(), traffic.cables.end());
  traffic.cables.erase(std::unique(traffic.cables.begin(), traffic.cables.end()),
                       traffic.cables.end());
  return traffic;
}

// The best scale of each element of `singles` (the candidates' explanations, an element's
// scales one after another), best elements first.
std::vector<Explanation> best_of_each_element(std::vector<Explanation> singles) {
  std::vector<Explanation> best;
  for (Explanation& e : singles) {
    if (best.empty() || !same_element(best.back().faults[0], e.faults[0])) {
      best.push_back(std::move(e));
    } else if (e.sse < best.back().sse) {
      best.back() = std::move(e);
    }
  }
  std::stable_sort(best.begin(), best.end(),
                   [](const Explanation& a, const Explanation& b) { return a.sse < b.sse; });
  return best;
}

// Fits the scale of each rate fault among the first `fitted` of `best`, keeping the fit where it
// is better. Returns how many it fitted.
std::size_t fit_best(const ExplanationContext& c,
                     std::size_t fitted,
                     const DiagnosisOptions& options,
                     std::vector<Explanation>& best) {
  const auto fittable = [](const Explanation& e) {
    return is_rate(e.faults[0].kind) && e.sse < kImpossible;
  };
  const auto fits = static_cast<std::size_t>(
      std::count_if(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(fitted), fittable));
  for_each_index(fitted, options, [&](std::size_t i) {
    if (fittable(best[i])) {
      const ElementFault& f = best[i].faults[0];
      const auto [lo, hi] = fit_bracket(options.scales, f.scale);
      Explanation e = fit_scale(c, f, lo, hi);
      if (e.sse < best[i].sse) {
        best[i] = std::move(e);
      }
    }
  });
  return fits;
}

// Every pair of the first `fitted` of `best`, together.
std::vector<Explanation> pairs_of_best(const ExplanationContext& c,
                                       std::size_t fitted,
                                       const DiagnosisOptions& options,
                                       const std::vector<Explanation>& best) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t a = 0; a < fitted; ++a) {
    for (std::size_t b = a + 1; b < fitted; ++b) {
      pairs.emplace_back(a, b);
    }
  }
  std::vector<Explanation> paired(pairs.size());
  for_each_index(pairs.size(), options, [&](std::size_t i) {
    paired[i] = explain(c, {best[pairs[i].first].faults[0], best[pairs[i].second].faults[0]});
  });
  return paired;
}

// Whether two explanations predict every measurement alike, within what noise can decide.
bool equivalent(const Explanation& a, const Explanation& b) {
  if (a.faults.size() != b.faults.size()) {
    return false;  // the simpler one is the explanation; the other adds a fault for nothing
  }
  for (std::size_t i = 0; i < a.predicted.size(); ++i) {
    if (std::abs(std::log(a.predicted[i] / b.predicted[i])) > kEquivalentLogError) {
      return false;
    }
  }
  return true;
}

// Drops the impossible explanations, orders the rest by the criterion over `n` measurements at
// `per_fault` a fault (header), then groups the equivalent ones, numbered in rank order by their
// best member.
void rank(std::vector<Explanation>& ranked, double n, double per_fault) {
  ranked.erase(std::remove_if(ranked.begin(), ranked.end(),
                              [](const Explanation& e) { return !(e.sse < kImpossible); }),
               ranked.end());
  for (Explanation& e : ranked) {
    // A floor on SSE / n well below any real measurement's noise keeps the log finite.
    e.criterion =
        n * std::log(std::max(e.sse / n, 1e-12)) + per_fault * static_cast<double>(e.faults.size());
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Explanation& a, const Explanation& b) {
    return a.criterion < b.criterion;
  });
  std::vector<const Explanation*> heads;
  for (Explanation& e : ranked) {
    const auto head = std::find_if(heads.begin(), heads.end(),
                                   [&](const Explanation* h) { return equivalent(*h, e); });
    e.group = static_cast<int>(head - heads.begin());
    if (head == heads.end()) {
      heads.push_back(&e);
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Explanation& a, const Explanation& b) { return a.group < b.group; });
}

}  // namespace

Diagnosis diagnose(const CalibratedModel& model,
                   const MeasurementSet& set,
                   const DiagnosisOptions& options) {
  Diagnosis d;
  d.notes = set.notes;
  const DesignTraffic traffic = predict_design(model, set, options, d);
  const ExplanationContext c{model, d.measurements, d.design, traffic.crossed};

  const std::vector<ElementFault> space = fault_space(model.system, traffic.cables, options.scales);
  std::vector<Explanation> singles(space.size());
  for_each_index(space.size(), options,
                 [&](std::size_t i) { singles[i] = explain(c, {space[i]}); });
  std::vector<Explanation> best = best_of_each_element(std::move(singles));
  const std::size_t fitted = std::min(best.size(), static_cast<std::size_t>(options.fitted));
  const std::size_t fits = fit_best(c, fitted, options, best);
  std::vector<Explanation> paired = pairs_of_best(c, fitted, options, best);

  // The criterion's price of a fault, from the number of candidate elements (header).
  const double per_fault = 2.0 * std::max(1.0, std::log(static_cast<double>(best.size())));
  // The fit evaluates two points, then one per iteration.
  d.candidates = static_cast<int>(1 + space.size() + fits * (kFitIterations + 2) + paired.size());
  d.ranked.push_back(explain(c, {}));
  d.ranked.insert(d.ranked.end(), std::make_move_iterator(best.begin()),
                  std::make_move_iterator(best.end()));
  d.ranked.insert(d.ranked.end(), std::make_move_iterator(paired.begin()),
                  std::make_move_iterator(paired.end()));
  rank(d.ranked, static_cast<double>(d.measurements.size()), per_fault);
  return d;
}

}  // namespace railsim::calibrate::diagnose
