// File: sim/ceil_div.hpp
// ceil_div: how many parts of `b` hold `a` (a >= 0, b > 0): units of a fabric, slices of a piece.
#pragma once

#include <concepts>

namespace railsim::sim {

template <std::signed_integral A, std::signed_integral B>
constexpr A ceil_div(A a, B b) {
  return static_cast<A>((a + b - 1) / b);
}

}  // namespace railsim::sim
