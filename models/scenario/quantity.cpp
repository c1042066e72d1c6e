// File: models/scenario/quantity.cpp
// One scanner for the number at the front of a quantity, then a unit table per kind. Sizes are
// computed in exact integer arithmetic, digit by digit, so "1.5K" is 1536 bytes and never a
// rounded double; rates and times go through double, as their sim types hold them.
#include "models/scenario/quantity.hpp"

#include "models/did_you_mean.hpp"
#include "models/scenario/message_text.hpp"
#include "sim/assert.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace railsim::models::scenario {
namespace {

[[noreturn]] void reject(std::string_view expected,
                         std::string_view text,
                         std::string_view reason = {}) {
  std::string message = fmt::format("expected {}, got {}", expected, quote(text));
  if (!reason.empty()) {
    message += fmt::format(" ({})", reason);
  }
  throw sim::InputError(message);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::size_t count_digits(std::string_view text, std::size_t from) {
  std::size_t end = from;
  while (end < text.size() && is_digit(text[end])) {
    ++end;
  }
  return end - from;
}

std::string_view skip_spaces(std::string_view text) {
  while (!text.empty() && text.front() == ' ') {
    text.remove_prefix(1);
  }
  return text;
}

// The non-negative decimal at the front of a text: digits, an optional fraction and, where
// allowed, an exponent. An "e" not followed by digits is left for the unit, which rejects it.
struct Decimal {
  std::string_view whole;     // digits before the point, possibly none
  std::string_view fraction;  // digits after it, possibly none
  std::string_view text;      // the whole number, exponent included
};

std::optional<Decimal> scan_decimal(std::string_view text, bool allow_exponent) {
  Decimal decimal;
  std::size_t end = count_digits(text, 0);
  decimal.whole = text.substr(0, end);
  if (end < text.size() && text[end] == '.') {
    const std::size_t digits = count_digits(text, end + 1);
    decimal.fraction = text.substr(end + 1, digits);
    end += 1 + digits;
  }
  if (decimal.whole.empty() && decimal.fraction.empty()) {
    return std::nullopt;
  }
  if (allow_exponent && end < text.size() && (text[end] == 'e' || text[end] == 'E')) {
    std::size_t digits_at = end + 1;
    if (digits_at < text.size() && (text[digits_at] == '+' || text[digits_at] == '-')) {
      ++digits_at;
    }
    const std::size_t digits = count_digits(text, digits_at);
    if (digits > 0) {
      end = digits_at + digits;
    }
  }
  decimal.text = text.substr(0, end);
  return decimal;
}

// A number and what follows it, the spaces between dropped. `part` is the piece being read and
// `text` the whole input, which messages quote.
struct Quantity {
  double value = 0.0;
  std::string_view unit;
};

Quantity split_number(std::string_view part, std::string_view text, std::string_view expected) {
  if (!part.empty() && part.front() == '-') {
    reject(expected, text, "negative");
  }
  const std::optional<Decimal> decimal = scan_decimal(part, /*allow_exponent=*/true);
  if (!decimal) {
    reject(expected, text);
  }
  Quantity quantity;
  const char* const end = decimal->text.data() + decimal->text.size();
  const auto [stop, error] = std::from_chars(decimal->text.data(), end, quantity.value);
  if (error == std::errc::result_out_of_range) {
    reject(expected, text, "number out of range");
  }
  RAILSIM_ASSERT(error == std::errc{} && stop == end, "from_chars reads what scan_decimal found");
  quantity.unit = skip_spaces(part.substr(decimal->text.size()));
  return quantity;
}

// Spaces may separate a number from its unit, never end the text.
void reject_trailing_space(std::string_view text, std::string_view expected) {
  if (!text.empty() && text.back() == ' ') {
    reject(expected, text);
  }
}

// 0 for no prefix, 1 to 4 for K, M, G, T (either case), nullopt for anything else.
std::optional<int> prefix_power(std::string_view prefix) {
  if (prefix.empty()) {
    return 0;
  }
  if (prefix.size() != 1) {
    return std::nullopt;
  }
  switch (prefix.front()) {
    case 'K':
    case 'k':
      return 1;
    case 'M':
    case 'm':
      return 2;
    case 'G':
    case 'g':
      return 3;
    case 'T':
    case 't':
      return 4;
    default:
      return std::nullopt;
  }
}

// Bytes per second in one unit of a rate, or nullopt for an unknown unit.
std::optional<double> bandwidth_scale(std::string_view unit) {
  struct Base {
    std::string_view suffix;
    double bytes_per_s;  // of the unprefixed unit
    double step;         // between prefixes
    bool needs_prefix;   // "iB/s" alone is no unit
  };

  constexpr std::array<Base, 5> kBases = {{{"bps", 1.0 / 8.0, 1000.0, false},
                                           {"b/s", 1.0 / 8.0, 1000.0, false},
                                           {"Bps", 1.0, 1000.0, false},
                                           {"B/s", 1.0, 1000.0, false},
                                           {"iB/s", 1.0, 1024.0, true}}};
  for (const Base& base : kBases) {
    if (!unit.ends_with(base.suffix)) {
      continue;
    }
    const std::string_view prefix = unit.substr(0, unit.size() - base.suffix.size());
    const std::optional<int> power = prefix_power(prefix);
    if (!power || (base.needs_prefix && *power == 0)) {
      continue;
    }
    return base.bytes_per_s * std::pow(base.step, *power);
  }
  return std::nullopt;
}

std::string unknown_unit(std::string_view unit, const std::vector<std::string_view>& units) {
  std::string reason = "unknown unit " + quote(unit);
  if (const std::optional<std::string> match = closest_match(unit, units)) {
    reason += "; did you mean " + quote(*match) + "?";
  }
  return reason;
}

// Bytes in one unit of a size, or nullopt for an unknown unit. nccl-tests' single letters may be
// either case ("64m"); the prefixes of KiB and KB are upper case only ("kB" is not taken).
std::optional<std::uint64_t> size_scale(std::string_view unit) {
  if (unit.empty() || unit == "B") {
    return 1;
  }
  const std::string_view prefix = unit.substr(0, 1);
  const std::string_view rest = unit.substr(1);
  std::uint64_t step = 1024;
  if (rest == "B") {
    step = 1000;
  } else if (!rest.empty() && rest != "iB") {
    return std::nullopt;
  }
  const bool upper = prefix.front() >= 'A' && prefix.front() <= 'Z';
  const std::optional<int> power = prefix_power(prefix);
  if (!power || (!rest.empty() && !upper)) {
    return std::nullopt;
  }
  std::uint64_t scale = 1;
  for (int i = 0; i < *power; ++i) {
    scale *= step;
  }
  return scale;
}

}  // namespace

sim::Bandwidth parse_bandwidth(std::string_view text) {
  reject_trailing_space(text, kBandwidthExpected);
  const Quantity quantity = split_number(text, text, kBandwidthExpected);
  if (quantity.unit.empty()) {
    reject(kBandwidthExpected, text);
  }
  const std::optional<double> scale = bandwidth_scale(quantity.unit);
  if (!scale) {
    // Most used first: on a tie, did_you_mean keeps the earlier candidate.
    reject(kBandwidthExpected, text,
           unknown_unit(quantity.unit,
                        {"Gbps", "Tbps", "Mbps", "Kbps", "bps",   "Gb/s",  "Tb/s",  "Mb/s",
                         "Kb/s", "b/s",  "GB/s", "TB/s", "MB/s",  "KB/s",  "B/s",   "GBps",
                         "TBps", "MBps", "KBps", "Bps",  "GiB/s", "TiB/s", "MiB/s", "KiB/s"}));
  }
  const double rate = quantity.value * *scale;
  if (!std::isfinite(rate)) {
    reject(kBandwidthExpected, text, "number out of range");
  }
  return sim::bytes_per_s(rate);
}

sim::Duration parse_duration(std::string_view text) {
  reject_trailing_space(text, kDurationExpected);
  const Quantity quantity = split_number(text, text, kDurationExpected);
  if (quantity.unit.empty()) {
    reject(kDurationExpected, text);
  }
  constexpr std::string_view kOutOfRange = "beyond the simulated range of +/-106 days";
  const std::string_view unit = quantity.unit;
  if (unit == "ps") {
    const double picos = std::round(quantity.value);
    // Every double below 2^63 converts to int64 exactly.
    if (!(picos < std::ldexp(1.0, 63))) {
      reject(kDurationExpected, text, kOutOfRange);
    }
    return sim::ps(static_cast<std::int64_t>(picos));
  }
  sim::Duration (*from_unit)(double) = nullptr;
  if (unit == "ns") {
    from_unit = sim::ns;
  } else if (unit == "us" || unit == "\u00b5s" || unit == "\u03bcs") {
    from_unit = sim::us;
  } else if (unit == "ms") {
    from_unit = sim::ms;
  } else if (unit == "s") {
    from_unit = sim::seconds;
  } else {
    reject(kDurationExpected, text,
           "unknown unit " + quote(unit) + "; expected ps, ns, us, ms or s");
  }
  try {
    return from_unit(quantity.value);
  } catch (const sim::InputError&) {
    reject(kDurationExpected, text, kOutOfRange);
  }
}

sim::Bytes parse_size(std::string_view text) {
  reject_trailing_space(text, kSizeExpected);
  if (!text.empty() && text.front() == '-') {
    reject(kSizeExpected, text, "negative");
  }
  const std::optional<Decimal> decimal = scan_decimal(text, /*allow_exponent=*/false);
  if (!decimal) {
    reject(kSizeExpected, text);
  }
  const std::string_view unit = skip_spaces(text.substr(decimal->text.size()));
  const std::optional<std::uint64_t> scale = size_scale(unit);
  if (!scale) {
    reject(kSizeExpected, text,
           "unknown unit " + quote(unit) +
               "; expected B, K, M, G, T, KiB, MiB, GiB, TiB, KB, MB, GB or TB");
  }

  // fraction x scale, digit by digit from the last: each digit it leaves behind the point must be
  // 0 for a whole number of bytes, and the carry out of the first is the whole bytes it adds.
  // The carry stays below `scale` (at most 1000^4 or 1024^4), so nothing here can overflow.
  std::uint64_t carry = 0;
  for (auto digit = decimal->fraction.rbegin(); digit != decimal->fraction.rend(); ++digit) {
    const std::uint64_t product = static_cast<std::uint64_t>(*digit - '0') * *scale + carry;
    if (product % 10 != 0) {
      reject(kSizeExpected, text, "not a whole number of bytes");
    }
    carry = product / 10;
  }

  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  constexpr std::string_view kTooLarge = "more than 2^63-1 bytes";
  std::uint64_t whole = 0;
  if (!decimal->whole.empty()) {
    const char* const end = decimal->whole.data() + decimal->whole.size();
    const auto [stop, error] = std::from_chars(decimal->whole.data(), end, whole);
    if (error == std::errc::result_out_of_range) {
      reject(kSizeExpected, text, kTooLarge);
    }
    RAILSIM_ASSERT(error == std::errc{} && stop == end, "from_chars reads what scan_decimal found");
  }
  if (whole > (kMax - carry) / *scale) {
    reject(kSizeExpected, text, kTooLarge);
  }
  return sim::bytes(static_cast<std::int64_t>(whole * *scale + carry));
}

double parse_ratio(std::string_view text) {
  reject_trailing_space(text, kRatioExpected);
  const Quantity numerator = split_number(text, text, kRatioExpected);
  if (numerator.unit.empty()) {
    return numerator.value;
  }
  if (numerator.unit.front() != ':') {
    reject(kRatioExpected, text);
  }
  const Quantity denominator =
      split_number(skip_spaces(numerator.unit.substr(1)), text, kRatioExpected);
  if (!denominator.unit.empty()) {
    reject(kRatioExpected, text);
  }
  if (denominator.value == 0.0) {
    reject(kRatioExpected, text, "zero denominator");
  }
  const double ratio = numerator.value / denominator.value;
  if (!std::isfinite(ratio)) {
    reject(kRatioExpected, text, "number out of range");
  }
  return ratio;
}

}  // namespace railsim::models::scenario
