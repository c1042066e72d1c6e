// File: tests/sim/max_min_check.cpp
// Feasibility and the bottleneck property, checked link by link.
#include "tests/sim/max_min_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>

namespace railsim::sim::testing {

std::vector<std::string> max_min_violations(const SharingProblem& problem,
                                            const std::vector<double>& rates,
                                            double relative_tolerance) {
  std::vector<std::string> violations;
  const std::size_t links = problem.link_capacity.size();
  std::vector<double> load(links, 0.0);
  std::vector<double> top_share(links, 0.0);  // largest rate / weight among crossers
  for (std::size_t f = 0; f < problem.flows.size(); ++f) {
    for (LinkIndex l : problem.flows[f].links) {
      load[l] += rates[f];
      top_share[l] = std::max(top_share[l], rates[f] / problem.flows[f].weight);
    }
  }
  for (std::size_t l = 0; l < links; ++l) {
    if (load[l] > problem.link_capacity[l] * (1.0 + relative_tolerance)) {
      violations.push_back(
          fmt::format("link {} carries {} > capacity {}", l, load[l], problem.link_capacity[l]));
    }
  }
  for (std::size_t f = 0; f < problem.flows.size(); ++f) {
    const FlowDemand& flow = problem.flows[f];
    if (rates[f] < 0.0) {
      violations.push_back(fmt::format("flow {} has negative rate {}", f, rates[f]));
    }
    if (rates[f] > flow.rate_cap * (1.0 + relative_tolerance)) {
      violations.push_back(fmt::format("flow {} rate {} > cap {}", f, rates[f], flow.rate_cap));
    }
    if (rates[f] >= flow.rate_cap * (1.0 - relative_tolerance)) {
      continue;  // Held by its cap.
    }
    const double share = rates[f] / flow.weight;
    const bool has_bottleneck = std::any_of(flow.links.begin(), flow.links.end(), [&](LinkIndex l) {
      const double capacity = problem.link_capacity[l];
      const bool full = load[l] >= capacity * (1.0 - relative_tolerance);
      return full && share >= top_share[l] * (1.0 - relative_tolerance) - 1e-300;
    });
    if (!has_bottleneck) {
      violations.push_back(
          fmt::format("flow {} (rate {}) has no bottleneck: it could take more", f, rates[f]));
    }
  }
  return violations;
}

}  // namespace railsim::sim::testing
