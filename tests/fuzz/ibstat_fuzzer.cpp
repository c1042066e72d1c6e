// File: tests/fuzz/ibstat_fuzzer.cpp
// The ibstat reader as `railsim parse FILE --as ibstat` runs it (JSON and CSV).
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return railsim::fuzz::parse_tool_output_as(data, size, "ibstat");
}
