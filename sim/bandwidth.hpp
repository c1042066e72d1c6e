// File: sim/bandwidth.hpp
// Bandwidth in bytes per second, and the one rounding rule that turns bytes and a rate into
// simulated time: transfer_time_ceil rounds up to the next picosecond, so every event that
// drains data lies strictly after the one before it and a simulation always makes progress.
#pragma once

#include "sim/bytes.hpp"
#include "sim/time.hpp"

#include <compare>
#include <limits>

namespace railsim::sim {

struct Bandwidth {
  double bytes_per_s = 0.0;

  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the defaulted comparison.
  constexpr auto operator<=>(const Bandwidth&) const = default;

  // Gigabits per second (10^9 bits), as link rates are quoted.
  constexpr double in_gbps() const { return bytes_per_s * 8e-9; }

  // Gigabytes per second (10^9 bytes), as nccl-tests prints algbw and busbw.
  constexpr double in_gbytes_per_s() const { return bytes_per_s * 1e-9; }
};

inline constexpr Bandwidth kUnboundedBandwidth{std::numeric_limits<double>::infinity()};

constexpr Bandwidth bytes_per_s(double rate) { return Bandwidth{rate}; }

// Gigabits per second: gbps(400) is one direction of a 400G port before encoding overhead.
constexpr Bandwidth gbps(double rate) { return Bandwidth{rate * 1e9 / 8.0}; }

// Gigabytes per second (10^9 bytes per second).
constexpr Bandwidth gbytes_per_s(double rate) { return Bandwidth{rate * 1e9}; }

constexpr Bandwidth operator*(Bandwidth b, double k) { return Bandwidth{b.bytes_per_s * k}; }

constexpr Bandwidth operator*(double k, Bandwidth b) { return Bandwidth{b.bytes_per_s * k}; }

// Time to move `bytes` (possibly fractional, as bytes left in a flow are) at `bytes_per_s`,
// rounded up to whole picoseconds. Zero bytes take zero time; a zero rate takes forever
// (Duration::max()), as does a result beyond the representable range.
Duration transfer_time_ceil(double bytes, double bytes_per_s);

inline Duration transfer_time_ceil(Bytes size, Bandwidth rate) {
  return transfer_time_ceil(static_cast<double>(size.count), rate.bytes_per_s);
}

inline Duration operator/(Bytes size, Bandwidth rate) { return transfer_time_ceil(size, rate); }

// The rate that moves `size` in `elapsed`: what nccl-tests calls algbw for a collective.
inline Bandwidth rate_of(Bytes size, Duration elapsed) {
  return Bandwidth{static_cast<double>(size.count) / to_seconds(elapsed)};
}

}  // namespace railsim::sim
