// File: tests/sim/max_min_check.hpp
// The definition of max-min fairness as a check, independent of how rates were computed:
// no link is over capacity, and every flow is at its cap or crosses a full link on which no
// other flow has a larger rate per unit weight. Returns the violations found (empty = fair).
#pragma once

#include "sim/max_min.hpp"

#include <string>
#include <vector>

namespace railsim::sim::testing {

std::vector<std::string> max_min_violations(const SharingProblem& problem,
                                            const std::vector<double>& rates,
                                            double relative_tolerance = 1e-9);

}  // namespace railsim::sim::testing
