// File: sim/time.cpp
// Rounding of fractional unit helpers and human-readable formatting of simulated time.
#include "sim/time.hpp"

#include "sim/assert.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <limits>

namespace railsim::sim {
namespace {

Duration from_scaled(double count, double ps_per_unit, const char* unit) {
  const double picos = std::round(count * ps_per_unit);
  // The largest double below 2^63 is the limit of an int64 picosecond count.
  constexpr double kLimit = 9.2e18;
  if (!std::isfinite(picos) || std::fabs(picos) > kLimit) {
    throw InputError(fmt::format("a duration of {} {} is outside the simulated range (+/-106 days)",
                                 count, unit));
  }
  return Duration{static_cast<std::int64_t>(picos)};
}

}  // namespace

Duration ns(double count) { return from_scaled(count, 1e3, "ns"); }

Duration us(double count) { return from_scaled(count, 1e6, "us"); }

Duration ms(double count) { return from_scaled(count, 1e9, "ms"); }

Duration seconds(double count) { return from_scaled(count, 1e12, "s"); }

std::string format_duration(Duration d) {
  const std::int64_t picos = d.count();
  const std::uint64_t magnitude =
      picos < 0 ? 0 - static_cast<std::uint64_t>(picos) : static_cast<std::uint64_t>(picos);
  if (magnitude < 1000) {
    return fmt::format("{} ps", picos);
  }

  struct Unit {
    double ps;
    const char* name;
  };

  constexpr Unit kUnits[] = {{1e12, "s"}, {1e9, "ms"}, {1e6, "us"}, {1e3, "ns"}};
  const double value = static_cast<double>(picos);
  for (const Unit& unit : kUnits) {
    if (static_cast<double>(magnitude) >= unit.ps) {
      return fmt::format("{:.3f} {}", value / unit.ps, unit.name);
    }
  }
  RAILSIM_UNREACHABLE("every magnitude of 1000 ps or more has a unit");
}

std::string format_time(SimTime t) { return format_duration(t.time_since_epoch()); }

}  // namespace railsim::sim
