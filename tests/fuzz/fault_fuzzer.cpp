// File: tests/fuzz/fault_fuzzer.cpp
// A fault file, {"faults": [...]}, as `railsim step --faults` reads it, for 16 DGX H100 nodes.
#include "tests/fuzz/fuzz_support.hpp"

#include "models/scenario/json_reader.hpp"
#include "models/scenario/step_file.hpp"
#include "models/scenario/system_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sc = railsim::models::scenario;
  static const sc::SystemFile kSystem = [] {
    sc::SystemFile system = sc::system_from_argument("dgx-h100");
    system.system.nodes = 16;
    return system;
  }();
  return railsim::fuzz::expect_clean([&] {
    const sc::JsonDocument document = sc::parse_json(railsim::fuzz::as_text(data, size), "f.json");
    const sc::JsonValue root = document.root();
    root.expect_keys({"faults"});
    static_cast<void>(sc::read_step_faults(root.at("faults"), kSystem.system));
  });
}
