// File: tests/input_error_text.hpp
// The message of the bad-input error a call throws, for tests that compare it word for word.
#pragma once

#include "sim/input_error.hpp"

#include <functional>
#include <string>

namespace railsim::test {

// What `call` throws as a sim::InputError, or "" when it throws none.
inline std::string input_error_text(const std::function<void()>& call) {
  try {
    call();
  } catch (const sim::InputError& error) {
    return error.what();
  }
  return "";
}

}  // namespace railsim::test
