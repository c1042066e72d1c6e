// File: calibrate/fuzz/parser_fuzz.cpp
// libFuzzer entry point for one parser (RAILSIM_FUZZ_FORMAT, set by CMake): any input must
// either parse or throw ParseError. Anything else (a crash, a sanitizer report, another
// exception, AssertionError included) is a finding.
#include "calibrate/parse/tool_output.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace railsim::calibrate::parse;
  static const ToolFormat format = tool_format_named(RAILSIM_FUZZ_FORMAT);
  const TextInput input("fuzz.txt", std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    parse_tool_output(input, format);
  } catch (const ParseError&) {
  }
  return 0;
}
