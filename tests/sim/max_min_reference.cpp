// File: tests/sim/max_min_reference.cpp
// The textbook water-filling loop, kept deliberately naive: no heaps, no incremental state.
#include "tests/sim/max_min_reference.hpp"

#include <algorithm>
#include <cstddef>

namespace railsim::sim::testing {

std::vector<double> reference_max_min(const SharingProblem& problem) {
  const std::size_t n = problem.flows.size();
  std::vector<double> rate(n, 0.0);
  std::vector<bool> frozen(n, false);
  for (std::size_t f = 0; f < n; ++f) {
    if (problem.flows[f].links.empty()) {
      rate[f] = problem.flows[f].rate_cap;
      frozen[f] = true;
    }
  }
  auto used = [&](std::size_t link) {
    double sum = 0.0;
    for (std::size_t f = 0; f < n; ++f) {
      sum += rate[f] * static_cast<double>(std::count(problem.flows[f].links.begin(),
                                                      problem.flows[f].links.end(), link));
    }
    return sum;
  };
  auto unfrozen_weight = [&](std::size_t link) {
    double sum = 0.0;
    for (std::size_t f = 0; f < n; ++f) {
      if (!frozen[f]) {
        sum += problem.flows[f].weight *
               static_cast<double>(
                   std::count(problem.flows[f].links.begin(), problem.flows[f].links.end(), link));
      }
    }
    return sum;
  };
  while (std::find(frozen.begin(), frozen.end(), false) != frozen.end()) {
    // The largest common raise (per unit weight) that no link and no cap forbids.
    double raise = kUnbounded;
    for (std::size_t l = 0; l < problem.link_capacity.size(); ++l) {
      const double w = unfrozen_weight(l);
      if (w > 0.0) {
        raise = std::min(raise, std::max(0.0, problem.link_capacity[l] - used(l)) / w);
      }
    }
    for (std::size_t f = 0; f < n; ++f) {
      if (!frozen[f]) {
        raise = std::min(raise, (problem.flows[f].rate_cap - rate[f]) / problem.flows[f].weight);
      }
    }
    for (std::size_t f = 0; f < n; ++f) {
      if (!frozen[f]) {
        rate[f] += raise * problem.flows[f].weight;
      }
    }
    // Freeze flows at their cap, and every flow crossing a link that is now full.
    std::vector<bool> full(problem.link_capacity.size(), false);
    for (std::size_t l = 0; l < problem.link_capacity.size(); ++l) {
      full[l] = used(l) >= problem.link_capacity[l] * (1.0 - 1e-12);
    }
    for (std::size_t f = 0; f < n; ++f) {
      if (frozen[f]) {
        continue;
      }
      bool stuck = rate[f] >= problem.flows[f].rate_cap * (1.0 - 1e-12);
      for (LinkIndex l : problem.flows[f].links) {
        stuck = stuck || full[l];
      }
      frozen[f] = stuck;
    }
  }
  return rate;
}

}  // namespace railsim::sim::testing
