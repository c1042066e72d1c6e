// File: calibrate/parse/fields.cpp
#include "calibrate/parse/fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>

namespace railsim::calibrate::parse {

bool is_device_name(std::string_view word) {
  return !word.empty() &&
         std::all_of(word.begin(), word.end(), [](char c) { return c > ' ' && c < '\x7f'; });
}

bool is_pci_address(std::string_view word) {
  if (word.size() != 12 || word[4] != ':' || word[7] != ':' || word[10] != '.') {
    return false;
  }
  constexpr std::array<std::size_t, 9> kHexDigits = {0, 1, 2, 3, 5, 6, 8, 9, 11};
  return std::all_of(kHexDigits.begin(), kHexDigits.end(), [word](std::size_t i) {
    return std::isxdigit(static_cast<unsigned char>(word[i])) != 0;
  });
}

namespace {

constexpr std::size_t kQuotedLength = 40;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && is_space(text.back())) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) {
      ++i;
    }
    const std::size_t start = i;
    while (i < text.size() && !is_space(text[i])) {
      ++i;
    }
    if (i > start) {
      fields.push_back(text.substr(start, i - start));
    }
  }
  return fields;
}

void append_word(std::string& text, std::string_view word) {
  if (!text.empty()) {
    text += ' ';
  }
  text += word;
}

std::string quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text.substr(0, kQuotedLength)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      out += fmt::format("\\x{:02x}", byte);
    }
  }
  out += text.size() > kQuotedLength ? "'..." : "'";
  return out;
}

std::int64_t integer_field(const Line& line,
                           std::string_view field,
                           std::string_view what,
                           std::int64_t min,
                           std::int64_t max) {
  std::int64_t value = 0;
  const char* end = field.data() + field.size();
  const auto [ptr, error] = std::from_chars(field.data(), end, value);
  if (field.empty() || error == std::errc::invalid_argument || ptr != end) {
    line.fail(fmt::format("expected {}, got {}", what, quoted(field)));
  }
  if (error == std::errc::result_out_of_range || value < min || value > max) {
    line.fail(fmt::format("expected {} from {} to {}, got {}", what, min, max, quoted(field)));
  }
  return value;
}

double number_field(const Line& line, std::string_view field, std::string_view what) {
  double value = 0.0;
  const char* end = field.data() + field.size();
  const auto [ptr, error] = std::from_chars(field.data(), end, value, std::chars_format::general);
  if (field.empty() || error != std::errc{} || ptr != end || !std::isfinite(value)) {
    line.fail(fmt::format("expected {} (a number), got {}", what, quoted(field)));
  }
  if (value < 0.0) {
    line.fail(fmt::format("expected {} (a number >= 0), got {}", what, quoted(field)));
  }
  return value;
}

}  // namespace railsim::calibrate::parse
