// File: sim/median.cpp
#include "sim/median.hpp"

#include "sim/assert.hpp"

#include <algorithm>
#include <cstddef>

namespace railsim::sim {

double median(std::vector<double> values) {
  RAILSIM_ASSERT(!values.empty(), "the median of nothing");
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace railsim::sim
