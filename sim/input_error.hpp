// File: sim/input_error.hpp
// InputError: the one exception type for bad input anywhere in railsim (a negative size, an
// empty path, a malformed scenario). The CLI prints it as `railsim: error: ...` and exits with
// status 2. Layers above sim/ derive their own (a scenario error carrying a JSON pointer) from it.
#pragma once

#include <stdexcept>

namespace railsim::sim {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace railsim::sim
