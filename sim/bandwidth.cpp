// File: sim/bandwidth.cpp
// transfer_time_ceil: the single conversion from bytes at a rate to picoseconds.
#include "sim/bandwidth.hpp"

#include "sim/assert.hpp"

#include <cmath>

namespace railsim::sim {

Duration transfer_time_ceil(double bytes, double bytes_per_s) {
  RAILSIM_ASSERT(bytes >= 0.0, "a transfer moves a non-negative number of bytes");
  RAILSIM_ASSERT(bytes_per_s >= 0.0, "a rate is non-negative");
  if (bytes <= 0.0) {
    return Duration::zero();
  }
  if (bytes_per_s <= 0.0) {
    return Duration::max();
  }
  // long double keeps 64 bits of mantissa, so a whole number of picoseconds such as
  // 1000 B at 1 GB/s = 1e6 ps is not pushed up one tick by rounding noise.
  const long double picos =
      std::ceil(static_cast<long double>(bytes) * 1e12L / static_cast<long double>(bytes_per_s));
  if (picos >= static_cast<long double>(Duration::max().count())) {
    return Duration::max();
  }
  return Duration{static_cast<Duration::rep>(picos)};
}

}  // namespace railsim::sim
