// File: tests/fuzz/nccl_tests_fuzzer.cpp
// The nccl-tests reader as `railsim parse FILE --as nccl-tests` runs it (JSON and CSV).
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return railsim::fuzz::parse_tool_output_as(data, size, "nccl-tests");
}
