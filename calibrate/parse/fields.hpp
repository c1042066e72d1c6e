// File: calibrate/parse/fields.hpp
// Fields of a line and the numbers in them. Every conversion either yields the value or fails
// with the line's file:line, what was expected and what was found: the parsers never guess.
#pragma once

#include "calibrate/parse/text_input.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::calibrate::parse {

// A line of an input with its number, so a field's error can say where it is.
struct Line {
  const TextInput* input = nullptr;
  int number = 0;
  std::string_view text;

  [[noreturn]] void fail(const std::string& what) const { input->fail(number, what); }
};

inline Line line_of(const TextInput& input, int number) {
  return Line{&input, number, input.line(number)};
}

std::string_view trim(std::string_view text);

// The white-space-separated fields of `text`.
std::vector<std::string_view> split_fields(std::string_view text);

// Appends `word` to `text`, a space between them unless `text` is empty: names printed as
// several words ("BW peak[MB/sec]", "warmup iters").
void append_word(std::string& text, std::string_view word);

// `text` for an error message: quoted, at most 40 characters, bytes outside printable ASCII
// as \xNN (a binary file must not garble the terminal).
std::string quoted(std::string_view text);

// Whether `word` can name a device or an interface ("mlx5_0", "ibp24s0", "eth0.100"): one or
// more printable ASCII characters and no space, so that a NUL or a control byte in a log is an
// error, never part of a name.
bool is_device_name(std::string_view word);

// Whether `word` is a PCI address with its domain, "dddd:bb:dd.f" in hex digits.
bool is_pci_address(std::string_view word);

// `field` whole as a decimal integer in [min, max]; otherwise fails with "expected <what>".
std::int64_t integer_field(const Line& line,
                           std::string_view field,
                           std::string_view what,
                           std::int64_t min = 0,
                           std::int64_t max = std::numeric_limits<std::int64_t>::max());

// `field` whole as a finite decimal number >= 0 (rates, times); otherwise fails.
double number_field(const Line& line, std::string_view field, std::string_view what);

}  // namespace railsim::calibrate::parse
