// File: sim/assert.cpp
// The out-of-line failure path of RAILSIM_ASSERT, kept out of the callers' hot code.
#include "sim/assert.hpp"

#include <string>

namespace railsim::sim {

void assertion_failed(const char* condition, const char* message, const char* file, int line) {
  throw AssertionError(std::string(file) + ":" + std::to_string(line) +
                       ": internal check failed: " + condition + ": " + message);
}

}  // namespace railsim::sim
