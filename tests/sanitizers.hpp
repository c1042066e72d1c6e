// File: tests/sanitizers.hpp
// Whether the tests run under AddressSanitizer (the `dev` and `ci` presets), where model-heavy
// tests run about forty times slower than in the optimised build. There, a test that repeats a
// claim over many seeds repeats it over few, and one that only measures a statistic is skipped:
// the sanitizers look for memory and undefined-behaviour errors, which one seed exercises as
// well as twenty; the optimised build (the README's test command) checks every seed.
#pragma once

namespace railsim::test {

#if defined(__SANITIZE_ADDRESS__)  // g++
inline constexpr bool kUnderSanitizers = true;
#elif defined(__has_feature)  // clang, which does not define g++'s macro
inline constexpr bool kUnderSanitizers = __has_feature(address_sanitizer);
#else
inline constexpr bool kUnderSanitizers = false;
#endif

// How many of a claim's `seeds` to run: all of them, or one under the sanitizers.
constexpr unsigned seeds_to_run(unsigned seeds) { return kUnderSanitizers ? 1 : seeds; }

}  // namespace railsim::test
