// File: tests/sim/max_min_reference.hpp
// A brute-force max-min solver written straight from the textbook, to check the real one
// against: every round raises all unfrozen flows by the same amount per unit weight until a
// link fills or a cap is reached, then freezes what is stuck. O(rounds x links x flows).
#pragma once

#include "sim/max_min.hpp"

#include <vector>

namespace railsim::sim::testing {

std::vector<double> reference_max_min(const SharingProblem& problem);

}  // namespace railsim::sim::testing
