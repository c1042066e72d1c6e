// File: tests/fuzz/lspci_fuzzer.cpp
// The lspci reader as `railsim parse FILE --as lspci` runs it (JSON and CSV).
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return railsim::fuzz::parse_tool_output_as(data, size, "lspci");
}
