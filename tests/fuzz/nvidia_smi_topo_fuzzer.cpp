// File: tests/fuzz/nvidia_smi_topo_fuzzer.cpp
// The nvidia-smi-topo reader as `railsim parse FILE --as nvidia-smi-topo` runs it (JSON and CSV).
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return railsim::fuzz::parse_tool_output_as(data, size, "nvidia-smi-topo");
}
