// File: sim/index.hpp
// at: an int index (ranks, nodes, GPUs, channels are ints throughout) as the size_t a standard
// container takes, in one place, so that -Wsign-conversion stays on without a cast at every use.
#pragma once

#include "sim/assert.hpp"

#include <cstddef>

namespace railsim::sim {

inline std::size_t at(int index) {
  RAILSIM_ASSERT(index >= 0, "a negative index");
  return static_cast<std::size_t>(index);
}

}  // namespace railsim::sim
