// File: tests/fuzz/step_fuzzer.cpp
// A training-step workload (docs/workloads.md) as `railsim step` reads it: `/step` or `/jobs` on
// the file's own system (a 2-node DGX H100 without one). The generators' phases are built, not
// run; the work limit is 64 MiB, so a step that would need more is refused as the CLI refuses
// one beyond --max-memory.
#include "tests/fuzz/fuzz_support.hpp"

#include "models/scenario/json_reader.hpp"
#include "models/scenario/step_file.hpp"
#include "models/scenario/system_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sc = railsim::models::scenario;
  return railsim::fuzz::expect_clean([&] {
    const sc::JsonDocument document = sc::parse_json(railsim::fuzz::as_text(data, size), "f.json");
    const sc::JsonValue root = document.root();
    const sc::SystemFile system = root.is_object() && root.contains("system")
                                      ? sc::read_system(root)
                                      : sc::system_from_argument("dgx-h100");
    const railsim::models::WorkLimit limit{std::int64_t{64} << 20};
    if (root.is_object() && root.contains("jobs")) {
      static_cast<void>(sc::read_jobs(root.at("jobs"), system.system, limit));
      return;
    }
    static_cast<void>(sc::read_step(
        root.is_object() && root.contains("step") ? root.at("step") : root, system.system, limit));
  });
}
