// File: tools/report/axis.cpp
#include "tools/report/axis.hpp"

#include "sim/assert.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace railsim::tools::report {
namespace {

// Slack for floating-point noise when a bound lies exactly on a tick (7.9999999 vs 8).
constexpr double kTickSlack = 1e-9;

// Drops trailing zeros of a fixed-point number ("1.50" -> "1.5", "2.00" -> "2") and turns "-0"
// into "0".
std::string trim_number(std::string text) {
  if (text.find('.') != std::string::npos && text.find('e') == std::string::npos) {
    while (text.back() == '0') {
      text.pop_back();
    }
    if (text.back() == '.') {
      text.pop_back();
    }
  }
  if (text == "-0") {
    return "0";
  }
  return text;
}

// Widens an empty range so that an axis always has extent.
std::pair<double, double> widen_if_empty(double lo, double hi) {
  if (hi < lo) {
    std::swap(lo, hi);
  }
  if (hi > lo) {
    return {lo, hi};
  }
  if (lo == 0.0) {
    return {0.0, 1.0};
  }
  const double half = std::abs(lo) / 2.0;
  return {lo - half, hi + half};
}

std::string format_power_of_ten(int exponent, double mantissa) {
  if (exponent >= -3 && exponent <= 6) {
    return trim_number(
        fmt::format("{:.{}f}", mantissa * std::pow(10.0, exponent), std::max(0, -exponent)));
  }
  return fmt::format("{}e{}", mantissa, exponent);
}

}  // namespace

AxisTicks linear_ticks(double lo, double hi, int target_count) {
  RAILSIM_ASSERT(std::isfinite(lo) && std::isfinite(hi), "linear_ticks needs a finite range");
  RAILSIM_ASSERT(target_count >= 1, "linear_ticks needs at least one interval");
  std::tie(lo, hi) = widen_if_empty(lo, hi);
  const double raw = (hi - lo) / target_count;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalised = raw / magnitude;
  double factor = 10.0;
  if (normalised <= 1.0 + kTickSlack) {
    factor = 1.0;
  } else if (normalised <= 2.0 + kTickSlack) {
    factor = 2.0;
  } else if (normalised <= 5.0 + kTickSlack) {
    factor = 5.0;
  }
  AxisTicks out;
  out.scale = AxisScale::kLinear;
  out.step = factor * magnitude;
  const auto first = static_cast<long long>(std::floor(lo / out.step + kTickSlack));
  const auto last = static_cast<long long>(std::ceil(hi / out.step - kTickSlack));
  out.ticks.reserve(static_cast<std::size_t>(last - first + 1));
  for (long long k = first; k <= last; ++k) {
    out.ticks.push_back({static_cast<double>(k) * out.step, true});
  }
  out.lo = out.ticks.front().value;
  out.hi = out.ticks.back().value;
  return out;
}

AxisTicks log10_ticks(double lo, double hi) {
  RAILSIM_ASSERT(lo > 0.0 && hi > 0.0 && std::isfinite(hi), "log10_ticks needs a positive range");
  if (hi < lo) {
    std::swap(lo, hi);
  }
  const int first = static_cast<int>(std::floor(std::log10(lo) + kTickSlack));
  int last = static_cast<int>(std::ceil(std::log10(hi) - kTickSlack));
  if (last == first) {
    ++last;
  }
  const bool minors = last - first <= 10;
  AxisTicks out;
  out.scale = AxisScale::kLog10;
  const int decades = last - first;
  out.ticks.reserve(3 * static_cast<std::size_t>(decades) + 1);
  for (int e = first; e <= last; ++e) {
    const double decade = std::pow(10.0, e);
    out.ticks.push_back({decade, true});
    if (minors && e < last) {
      out.ticks.push_back({2.0 * decade, false});
      out.ticks.push_back({5.0 * decade, false});
    }
  }
  out.lo = std::pow(10.0, first);
  out.hi = std::pow(10.0, last);
  return out;
}

AxisTicks log2_ticks(double lo, double hi) {
  RAILSIM_ASSERT(lo > 0.0 && hi > 0.0 && std::isfinite(hi), "log2_ticks needs a positive range");
  if (hi < lo) {
    std::swap(lo, hi);
  }
  const int first = static_cast<int>(std::floor(std::log2(lo) + kTickSlack));
  int last = static_cast<int>(std::ceil(std::log2(hi) - kTickSlack));
  if (last == first) {
    ++last;
  }
  constexpr std::array<int, 5> kOctaveSteps = {1, 2, 5, 10, 20};
  constexpr int kMaxLabels = 8;
  const auto multiples = [&](int step) {
    const auto count_to = [step](int e) { return e >= 0 ? e / step : -((-e + step - 1) / step); };
    return count_to(last) - count_to(first - 1);
  };
  int step = kOctaveSteps.back();
  for (const int candidate : kOctaveSteps) {
    if (multiples(candidate) <= kMaxLabels) {
      step = candidate;
      break;
    }
  }
  const bool minors = last - first <= 40;
  AxisTicks out;
  out.scale = AxisScale::kLog2;
  const int octaves = last - first;
  out.ticks.reserve(static_cast<std::size_t>(octaves) + 1);
  for (int e = first; e <= last; ++e) {
    const bool major = e % step == 0;
    if (major || minors) {
      out.ticks.push_back({std::ldexp(1.0, e), major});
    }
  }
  out.lo = std::ldexp(1.0, first);
  out.hi = std::ldexp(1.0, last);
  return out;
}

AxisTicks make_ticks(AxisScale scale, double lo, double hi, bool include_zero) {
  switch (scale) {
    case AxisScale::kLinear:
      if (include_zero) {
        lo = std::min(lo, 0.0);
        hi = std::max(hi, 0.0);
      }
      return linear_ticks(lo, hi);
    case AxisScale::kLog10:
      return log10_ticks(lo, hi);
    case AxisScale::kLog2:
      return log2_ticks(lo, hi);
  }
  RAILSIM_UNREACHABLE("unknown AxisScale");
}

AxisMap::AxisMap(AxisScale scale, double lo, double hi, double pixel_lo, double pixel_hi)
    : scale_(scale), lo_(lo), hi_(hi), pixel_lo_(pixel_lo), pixel_hi_(pixel_hi) {
  RAILSIM_ASSERT(hi > lo, "AxisMap needs a range with extent");
  RAILSIM_ASSERT(scale == AxisScale::kLinear || lo > 0.0, "a log axis needs a positive range");
}

bool AxisMap::plottable(double value) const {
  if (!std::isfinite(value)) {
    return false;
  }
  return scale_ == AxisScale::kLinear || value > 0.0;
}

double AxisMap::transform(double value) const {
  return scale_ == AxisScale::kLinear ? value : std::log10(value);
}

double AxisMap::to_pixel(double value) const {
  RAILSIM_ASSERT(plottable(value), "AxisMap::to_pixel of a value the axis cannot show");
  const double fraction = (transform(value) - transform(lo_)) / (transform(hi_) - transform(lo_));
  return pixel_lo_ + fraction * (pixel_hi_ - pixel_lo_);
}

std::string format_tick(double value, TickFormat format, const AxisTicks& ticks) {
  if (format == TickFormat::kBytes) {
    return format_bytes(value);
  }
  if (ticks.scale == AxisScale::kLog10) {
    const int exponent = static_cast<int>(std::floor(std::log10(value) + kTickSlack));
    const double mantissa = std::round(value / std::pow(10.0, exponent));
    return format_power_of_ten(exponent, mantissa);
  }
  if (ticks.scale == AxisScale::kLog2 || ticks.step <= 0.0 || std::abs(value) >= 1e7) {
    return format_number(value);
  }
  const int decimals =
      std::max(0, -static_cast<int>(std::floor(std::log10(ticks.step) + kTickSlack)));
  return trim_number(fmt::format("{:.{}f}", value, decimals));
}

std::string format_bytes(double bytes) {
  constexpr std::array<const char*, 6> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (!std::isfinite(bytes)) {
    return "n/a";
  }
  std::size_t unit = 0;
  double scaled = bytes;
  while (std::abs(scaled) >= 1024.0 && unit + 1 < kUnits.size()) {
    scaled /= 1024.0;
    ++unit;
  }
  return fmt::format("{} {}", format_number(scaled), kUnits[unit]);
}

std::string format_number(double value) {
  if (std::isnan(value)) {
    return "n/a";
  }
  if (std::isinf(value)) {
    return value > 0 ? "inf" : "-inf";
  }
  const double magnitude = std::abs(value);
  if (magnitude >= 1e15) {
    return fmt::format("{:.3g}", value);
  }
  if (magnitude >= 100.0) {
    return trim_number(fmt::format("{:.0f}", value));
  }
  if (magnitude >= 10.0) {
    return trim_number(fmt::format("{:.1f}", value));
  }
  if (magnitude >= 1.0) {
    return trim_number(fmt::format("{:.2f}", value));
  }
  if (magnitude == 0.0 || magnitude >= 1e-3) {
    return trim_number(fmt::format("{:.3g}", value));
  }
  return fmt::format("{:.3g}", value);
}

std::string format_coordinate(double pixel) { return trim_number(fmt::format("{:.2f}", pixel)); }

}  // namespace railsim::tools::report
