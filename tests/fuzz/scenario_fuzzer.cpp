// File: tests/fuzz/scenario_fuzzer.cpp
// A scenario file (docs/scenarios.md) as `railsim run` reads it: system, workload, background.
#include "tests/fuzz/fuzz_support.hpp"

#include "models/scenario/json_reader.hpp"
#include "models/scenario/scenario_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sc = railsim::models::scenario;
  return railsim::fuzz::expect_clean([&] {
    const sc::JsonDocument document = sc::parse_json(railsim::fuzz::as_text(data, size), "f.json");
    static_cast<void>(sc::read_scenario(document.root()));
  });
}
