// File: sim/bytes.cpp
#include "sim/bytes.hpp"

#include <fmt/format.h>

#include <array>

namespace railsim::sim {

std::string size_text(Bytes size) {
  constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::int64_t count = size.count;
  std::size_t unit = 0;
  while (unit + 1 < kUnits.size() && count != 0 && count % 1024 == 0) {
    count /= 1024;
    ++unit;
  }
  return fmt::format("{} {}", count, kUnits[unit]);
}

}  // namespace railsim::sim
