// File: sim/bytes.hpp
// Bytes: a whole number of bytes in a strong type, so a size can never be passed where a count
// of elements or a rate is expected. Factories use powers of 1024 (kib, mib, gib) as nccl-tests'
// size suffixes do, and powers of 1000 (kb, mb, gb) where datasheets do.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace railsim::sim {

struct Bytes {
  std::int64_t count = 0;

  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the defaulted comparison.
  constexpr auto operator<=>(const Bytes&) const = default;

  constexpr Bytes& operator+=(Bytes other) {
    count += other.count;
    return *this;
  }

  constexpr Bytes& operator-=(Bytes other) {
    count -= other.count;
    return *this;
  }
};

constexpr Bytes operator+(Bytes a, Bytes b) { return Bytes{a.count + b.count}; }

constexpr Bytes operator-(Bytes a, Bytes b) { return Bytes{a.count - b.count}; }

constexpr Bytes operator*(Bytes a, std::int64_t k) { return Bytes{a.count * k}; }

constexpr Bytes operator*(std::int64_t k, Bytes a) { return Bytes{a.count * k}; }

constexpr Bytes bytes(std::int64_t n) { return Bytes{n}; }

constexpr Bytes kib(std::int64_t n) { return Bytes{n * 1024}; }

constexpr Bytes mib(std::int64_t n) { return Bytes{n * 1024 * 1024}; }

constexpr Bytes gib(std::int64_t n) { return Bytes{n * 1024 * 1024 * 1024}; }

constexpr Bytes kb(std::int64_t n) { return Bytes{n * 1000}; }

constexpr Bytes mb(std::int64_t n) { return Bytes{n * 1000 * 1000}; }

constexpr Bytes gb(std::int64_t n) { return Bytes{n * 1000 * 1000 * 1000}; }

// A size in the largest binary unit (up to TiB) that divides it, as people write sizes and the
// size parser (models/scenario/quantity.hpp) reads them back exactly: 8388608 -> "8 MiB",
// 3072 -> "3 KiB", 1536 -> "1536 B", 0 -> "0 B".
std::string size_text(Bytes size);

}  // namespace railsim::sim
