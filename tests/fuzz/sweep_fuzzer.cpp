// File: tests/fuzz/sweep_fuzzer.cpp
// A sweep file (docs/sweeps.md) as `railsim sweep` reads it, before any point runs: the base,
// the parameters and every point's document.
#include "tests/fuzz/fuzz_support.hpp"

#include "models/scenario/json_reader.hpp"
#include "tools/sweep/sweep_file.hpp"
#include "tools/sweep/sweep_points.hpp"

#include <algorithm>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sweep = railsim::tools::sweep;
  return railsim::fuzz::expect_clean([&] {
    const sweep::SweepFile file =
        sweep::parse_sweep(railsim::fuzz::as_text(data, size), "f.json", RAILSIM_SOURCE_DIR);
    // The first points' documents, as the runner builds them (a grid may hold a million).
    for (std::size_t point = 0; point < std::min<std::size_t>(file.points, 4); ++point) {
      static_cast<void>(railsim::models::scenario::parse_json(sweep::point_document(file, point),
                                                              sweep::point_name(file, point)));
    }
  });
}
