// File: tests/fuzz/ibdev2netdev_fuzzer.cpp
// The ibdev2netdev reader as `railsim parse FILE --as ibdev2netdev` runs it (JSON and CSV).
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return railsim::fuzz::parse_tool_output_as(data, size, "ibdev2netdev");
}
