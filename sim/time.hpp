// File: sim/time.hpp
// Simulated time: Duration (relative) and SimTime (absolute), both integer picoseconds.
// Picoseconds because 1 KiB at 800 Gb/s takes 10.24 ns: nanosecond ticks would cost several
// percent on small chunks. int64 picoseconds span about +/-106 days of simulated time.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace railsim::sim {

using Duration = std::chrono::duration<std::int64_t, std::pico>;

// The clock of simulated time; it has no now(): the Simulator owns the current time.
struct SimClock {
  using duration = Duration;
  using rep = Duration::rep;
  using period = Duration::period;
  using time_point = std::chrono::time_point<SimClock>;
  static constexpr bool is_steady = true;  // NOLINT(readability-identifier-naming): std name
};

using SimTime = SimClock::time_point;

inline constexpr SimTime kTimeZero{};
inline constexpr SimTime kTimeNever{Duration::max()};

// Unit helpers. Fractional arguments round to the nearest picosecond, so "1.5us" is exact.
constexpr Duration ps(std::int64_t count) { return Duration{count}; }

Duration ns(double count);
Duration us(double count);
Duration ms(double count);
Duration seconds(double count);

// Conversions for output and for rate arithmetic. Dividing (rather than multiplying by 1e-12)
// rounds correctly: 56'002'985 ps is the double nearest 56.002985 us, which prints as that, where
// the product is an ulp off and prints as 56.002984999999995.
constexpr double to_seconds(Duration d) { return static_cast<double>(d.count()) / 1e12; }

constexpr double to_us(Duration d) { return static_cast<double>(d.count()) / 1e6; }

constexpr double to_ms(Duration d) { return static_cast<double>(d.count()) / 1e9; }

constexpr SimTime at(Duration since_zero) { return SimTime{since_zero}; }

// "1.500 us", "12 ps", "3.250 ms": the largest unit in which the value is at least 1.
std::string format_duration(Duration d);
std::string format_time(SimTime t);

}  // namespace railsim::sim
