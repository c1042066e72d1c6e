// File: sim/median.hpp
// median: the middle of a sample, the mean of the two middle values for an even count (as
// perftest's typical latency and every robust statistic in railsim take it).
#pragma once

#include <vector>

namespace railsim::sim {

// O(n log n). `values` must not be empty.
double median(std::vector<double> values);

}  // namespace railsim::sim
