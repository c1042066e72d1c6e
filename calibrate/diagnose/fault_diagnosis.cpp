// File: calibrate/diagnose/fault_diagnosis.cpp
#include "calibrate/diagnose/fault_diagnosis.hpp"

#include "calibrate/diagnose/fault_space.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <numeric>
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

// Screened single faults completed per batch: a constant, so that which are completed does not
// depend on the threads.
constexpr std::size_t kCompletedPerBatch = 8;

// Whether the options' budget ends the search now.
bool out_of_time(const DiagnosisOptions& options) {
  return options.out_of_time && options.out_of_time();
}

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
// is better. Returns the explanations the fits tried, adding their model runs to `model_runs`.
int fit_best(const ExplanationContext& c,
             std::size_t fitted,
             const DiagnosisOptions& options,
             std::vector<Explanation>& best,
             std::int64_t& model_runs) {
  std::vector<int> runs(fitted, 0);
  std::vector<int> model(fitted, 0);
  for_each_index(fitted, options, [&](std::size_t i) {
    if (is_rate(best[i].faults[0].kind) && best[i].sse < kImpossible) {
      const ElementFault& f = best[i].faults[0];
      const auto [lo, hi] = fit_bracket(options.scales, f.scale);
      FittedScale fit = fit_scale(c, f, lo, hi);
      runs[i] = fit.runs;
      model[i] = fit.model_runs;
      if (fit.explanation.sse < best[i].sse) {
        best[i] = std::move(fit.explanation);
      }
    }
  });
  model_runs += std::accumulate(model.begin(), model.end(), std::int64_t{0});
  return std::accumulate(runs.begin(), runs.end(), 0);
}

// Whether two explanations predict every measurement alike, within what noise can decide.
bool predict_alike(const Explanation& a, const Explanation& b) {
  for (std::size_t i = 0; i < a.predicted.size(); ++i) {
    if (std::abs(std::log(a.predicted[i] / b.predicted[i])) > kEquivalentLogError) {
      return false;
    }
  }
  return true;
}

// Explanations of as many faults that predict alike: the measurements cannot tell them apart.
// Of different counts, the simpler one is the explanation; the other adds a fault for nothing.
bool equivalent(const Explanation& a, const Explanation& b) {
  return a.faults.size() == b.faults.size() && predict_alike(a, b);
}

// Every pair of the first `fitted` of `best`, together, but those that predict as one of their
// faults alone; the model runs of all of them added to `model_runs`.
std::vector<Explanation> pairs_of_best(const ExplanationContext& c,
                                       std::size_t fitted,
                                       const DiagnosisOptions& options,
                                       const std::vector<Explanation>& best,
                                       std::int64_t& model_runs) {
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
  // A pair that predicts as one of its faults alone adds a fault for nothing: that one is the
  // explanation (a cable at half rate and its PCIe link trained to the same rate).
  std::vector<Explanation> kept;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    model_runs += paired[i].model_runs;
    if (!predict_alike(paired[i], best[pairs[i].first]) &&
        !predict_alike(paired[i], best[pairs[i].second])) {
      kept.push_back(std::move(paired[i]));
    }
  }
  return kept;
}

// Among the completed, in SSE order, the first by whose SSE `needed` groups of equivalent
// explanations and `needed` distinct elements have been seen; kImpossible while fewer are done.
// A candidate whose SSE is above it can neither be among the best `needed` elements nor head
// one of the first `needed` groups.
double leading_bound(std::vector<const Explanation*> done, std::size_t needed) {
  std::stable_sort(done.begin(), done.end(),
                   [](const Explanation* a, const Explanation* b) { return a->sse < b->sse; });
  std::vector<const Explanation*> heads;
  std::vector<const Explanation*> elements;
  for (const Explanation* e : done) {
    if (!(e->sse < kImpossible)) {
      break;
    }
    if (std::none_of(heads.begin(), heads.end(),
                     [&](const Explanation* h) { return equivalent(*h, *e); })) {
      heads.push_back(e);
    }
    if (std::none_of(elements.begin(), elements.end(), [&](const Explanation* x) {
          return same_element(x->faults[0], e->faults[0]);
        })) {
      elements.push_back(e);
    }
    if (heads.size() >= needed && elements.size() >= needed) {
      return e->sse;
    }
  }
  return kImpossible;
}

// The screened single faults (explanation.hpp) completed in the order of their bounds, a batch
// at a time, until the next bound is above leading_bound; the others, and those whose rows
// passed it part-way, left with their bounds.
struct Completion {
  std::vector<Explanation> left;
  int completed = 0;
  int stopped = 0;         // predicted in part: the bound passed on the way
  bool cut_short = false;  // out of time before the bound ended it
};

// Moves the candidates left out of `singles` (each leaves kImpossible in its place).
Completion complete_in_bound_order(const ExplanationContext& c,
                                   const std::vector<std::size_t>& rows,
                                   std::size_t needed,
                                   const DiagnosisOptions& options,
                                   std::vector<Explanation>& singles) {
  std::vector<std::size_t> order(singles.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return singles[a].sse < singles[b].sse; });
  std::vector<const Explanation*> done;
  std::vector<std::size_t> stopped;  // by the bound, part-way
  std::size_t next = 0;
  Completion out;
  while (next < order.size() && singles[order[next]].sse < kImpossible &&
         singles[order[next]].sse <= leading_bound(done, needed)) {
    // Where the screen predicted every row, completing costs nothing, and no budget stops it.
    if (rows.size() < c.measurements.size() && out_of_time(options)) {
      out.cut_short = true;
      break;
    }
    // A candidate whose rows pass the bound on the way cannot beat it (the bound only falls as
    // more are done), so it stops there. The bound is the batch's, whatever the threads.
    const std::size_t batch = std::min(kCompletedPerBatch, order.size() - next);
    const double bound = leading_bound(done, needed);
    std::vector<char> finished(batch, 0);
    for_each_index(batch, options, [&](std::size_t k) {
      finished[k] = complete(c, singles[order[next + k]], rows, bound) ? 1 : 0;
    });
    for (std::size_t k = 0; k < batch; ++k) {
      if (finished[k] != 0) {
        done.push_back(&singles[order[next + k]]);
      } else {
        stopped.push_back(order[next + k]);
      }
    }
    next += batch;
  }
  out.completed = static_cast<int>(done.size());
  out.stopped = static_cast<int>(stopped.size());
  stopped.insert(stopped.end(), order.begin() + static_cast<std::ptrdiff_t>(next), order.end());
  for (const std::size_t i : stopped) {
    Explanation& e = singles[i];
    if (e.sse < kImpossible) {
      out.left.push_back(e);
      e.sse = kImpossible;
    }
  }
  return out;
}

// Whether screened candidate `e` may be equivalent to `other`: within kEquivalentLogError of it
// on every row screened, and its bound within what equivalence allows over all rows (each row's
// log error differing by at most kEquivalentLogError).
bool may_join(const Explanation& e,
              const Explanation& other,
              const std::vector<std::size_t>& rows) {
  const double rows_all = static_cast<double>(e.predicted.size());
  const double root = std::sqrt(other.sse) + kEquivalentLogError * std::sqrt(rows_all);
  return e.faults.size() == other.faults.size() && e.sse <= root * root &&
         std::all_of(rows.begin(), rows.end(), [&](std::size_t i) {
           return std::abs(std::log(e.predicted[i] / other.predicted[i])) <= kEquivalentLogError;
         });
}

// The elements with a scale left out that may join a finite explanation of `best` (grid or
// fitted) and, by its bound, beat the element's entry there: every scale of theirs left out
// completed, the best in the element's place in `best`. So every element whose best scale is
// equivalent to an explanation of `best` has that scale there, as when every candidate is
// completed. Returns how many it completed, adding the model runs that took to `model_runs`.
int join_left(const ExplanationContext& c,
              const std::vector<std::size_t>& rows,
              const DiagnosisOptions& options,
              std::vector<Explanation>& left,
              std::vector<Explanation>& best,
              std::int64_t& model_runs) {
  const auto entry = [&](const Explanation& e) {
    return std::find_if(best.begin(), best.end(), [&](const Explanation& b) {
      return same_element(b.faults[0], e.faults[0]);
    });
  };
  std::vector<std::size_t> joining;
  for (std::size_t i = 0; i < left.size(); ++i) {
    const auto place = entry(left[i]);
    if (std::find(joining.begin(), joining.end(), i) != joining.end() ||
        (place != best.end() && !(left[i].sse < place->sse))) {
      continue;  // its element joins already, or by its bound it cannot beat the entry
    }
    if (std::any_of(best.begin(), best.end(), [&](const Explanation& b) {
          return b.sse < kImpossible && may_join(left[i], b, rows);
        })) {
      for (std::size_t k = 0; k < left.size(); ++k) {
        if (same_element(left[k].faults[0], left[i].faults[0]) &&
            std::find(joining.begin(), joining.end(), k) == joining.end()) {
          joining.push_back(k);
        }
      }
    }
  }
  // Each was screened (and perhaps stopped part-way) before, those runs counted already.
  for (const std::size_t k : joining) {
    model_runs -= left[k].model_runs;
  }
  for_each_index(joining.size(), options,
                 [&](std::size_t k) { complete(c, left[joining[k]], rows); });
  for (const std::size_t k : joining) {
    model_runs += left[k].model_runs;
    const auto place = entry(left[k]);
    if (place == best.end()) {
      best.push_back(std::move(left[k]));
    } else if (left[k].sse < place->sse) {
      *place = std::move(left[k]);
    }
  }
  return static_cast<int>(joining.size());
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
  models::RecurrenceMemo memo;
  const ExplanationContext c{model, d.measurements, d.design, traffic.crossed, memo};

  const std::vector<ElementFault> space = fault_space(model.system, traffic.cables, options.scales);
  const std::vector<std::size_t> rows = screen_rows(d.measurements);
  std::vector<Explanation> singles(space.size());
  for_each_index(space.size(), options,
                 [&](std::size_t i) { singles[i] = screen(c, {space[i]}, rows); });
  d.screened = static_cast<int>(space.size());
  d.screen_rows = static_cast<int>(rows.size());
  Completion completion = complete_in_bound_order(
      c, rows, static_cast<std::size_t>(std::max(0, options.fitted + options.listed)), options,
      singles);
  d.model_runs = static_cast<std::int64_t>(set.rows.size());  // the design's, each row once
  for (const Explanation& e : singles) {
    d.model_runs += e.model_runs;
  }
  std::vector<Explanation> best = best_of_each_element(std::move(singles));
  d.cut_short = completion.cut_short || out_of_time(options);
  const std::size_t fitted =
      d.cut_short ? 0 : std::min(best.size(), static_cast<std::size_t>(options.fitted));
  const int fit_runs = fit_best(c, fitted, options, best, d.model_runs);
  std::vector<Explanation> paired = pairs_of_best(c, fitted, options, best, d.model_runs);
  d.completed = completion.completed;
  d.stopped = completion.stopped;
  if (completion.cut_short) {
    d.left_unpredicted = static_cast<int>(completion.left.size());
    for (const Explanation& e : completion.left) {
      d.left_bound_sse = std::min(d.left_bound_sse, e.sse);
    }
  } else if (!d.cut_short) {
    d.completed += join_left(c, rows, options, completion.left, best, d.model_runs);
  }

  // The criterion's price of a fault, from the number of candidate elements (header).
  const double per_fault = 2.0 * std::max(1.0, std::log(static_cast<double>(best.size())));
  d.candidates = static_cast<int>(1 + space.size() + fitted * (fitted - 1) / 2) + fit_runs;
  d.ranked.push_back(explain(c, {}));
  d.ranked.insert(d.ranked.end(), std::make_move_iterator(best.begin()),
                  std::make_move_iterator(best.end()));
  d.ranked.insert(d.ranked.end(), std::make_move_iterator(paired.begin()),
                  std::make_move_iterator(paired.end()));
  rank(d.ranked, static_cast<double>(d.measurements.size()), per_fault);
  return d;
}

}  // namespace railsim::calibrate::diagnose
