// File: sim/assert.hpp
// RAILSIM_ASSERT and RAILSIM_UNREACHABLE: checks for bugs (never for bad input, which throws
// InputError). They are compiled in when RAILSIM_ENABLE_ASSERTS is defined (the dev and ci
// presets) and vanish otherwise. A failed check throws AssertionError instead of aborting, so a
// library never ends the process on its own.
#pragma once

#include <stdexcept>

namespace railsim::sim {

// A broken internal invariant: a bug in railsim, not in its input.
class AssertionError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void assertion_failed(const char* condition,
                                   const char* message,
                                   const char* file,
                                   int line);

}  // namespace railsim::sim

#if defined(RAILSIM_ENABLE_ASSERTS)
#define RAILSIM_ASSERT(cond, msg)                                         \
  do {                                                                    \
    if (!(cond)) {                                                        \
      ::railsim::sim::assertion_failed(#cond, (msg), __FILE__, __LINE__); \
    }                                                                     \
  } while (false)
#else
#define RAILSIM_ASSERT(cond, msg) \
  do {                            \
  } while (false)
#endif

// Marks a path that cannot be reached; unlike RAILSIM_ASSERT it is kept in every build.
#define RAILSIM_UNREACHABLE(msg) \
  ::railsim::sim::assertion_failed("unreachable", (msg), __FILE__, __LINE__)
