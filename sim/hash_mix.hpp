// File: sim/hash_mix.hpp
// hash_mix: folds a value into a 64-bit hash (splitmix64's finaliser over a boost-style
// combine). One function serves every deterministic hash in railsim: the event-trace hash and
// the ECMP path choice; the same inputs give the same bits on every platform.
#pragma once

#include <cstdint>

namespace railsim::sim {

constexpr std::uint64_t hash_mix(std::uint64_t hash, std::uint64_t value) {
  std::uint64_t z = hash ^ (value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace railsim::sim
