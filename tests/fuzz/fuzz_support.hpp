// File: tests/fuzz/fuzz_support.hpp
// What every libFuzzer target of tests/fuzz shares: the bytes as a file where a reader wants a
// path, and the one rule the targets check, that bad input ends as a sim::InputError (the CLI's
// exit status 2). Any other exception escapes LLVMFuzzerTestOneInput, and libFuzzer reports it
// as a crash, as it does the sanitizers' findings.
#pragma once

#include "sim/input_error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace railsim::fuzz {

// The input as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Writes the input to a file of this process, named with `suffix` (".json", ".txt"), and
// returns its path; each call overwrites the last.
std::string write_input(std::string_view text, std::string_view suffix);

// Runs `read`, taking an InputError as the expected answer to bad input.
template <class Read>
int expect_clean(Read read) {
  try {
    read();
  } catch (const sim::InputError&) {
  }
  return 0;
}

// Aborts (a finding) unless `text`, a command's JSON output, is well-formed UTF-8.
void require_utf8(std::string_view text);

// `railsim parse FILE --as FORMAT` on the input, as JSON and as CSV.
int parse_tool_output_as(const std::uint8_t* data, std::size_t size, const char* format);

}  // namespace railsim::fuzz
