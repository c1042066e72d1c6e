// File: tests/fuzz/profile_fuzzer.cpp
// A calibration profile (railsim calibrate -o) as --profile reads it.
#include "tests/fuzz/fuzz_support.hpp"

#include "calibrate/fit/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = railsim::fuzz::write_input(railsim::fuzz::as_text(data, size), ".json");
  return railsim::fuzz::expect_clean(
      [&] { static_cast<void>(railsim::calibrate::fit::read_profile(path)); });
}
