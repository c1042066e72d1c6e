// File: models/collective/recurrence_memo.hpp
// RecurrenceMemo: the answers of channels' recurrences (pipeline_time.hpp), kept across the
// collective calls of one caller that predicts the same measurements many times. A diagnosis
// predicts each row under hundreds of explanations, and most of them leave a ring channel's
// connections at paces some other explanation already gave them: a port slowed on any node of a
// bandwidth-bound ring holds every connection at the same floor. On a 20 x 8 log of three
// collectives x ten sizes, 79,212 ring recurrences had 2,908 distinct inputs.
//
// An answer is kept under a 128-bit digest (MD5) of every input word the recurrence reads. For
// inputs that are not built to collide, two distinct ones share a digest with probability about
// k^2 / 2^129 among k answers, so an answer found is the one the recurrence gives, to the bit,
// and a run's output does not depend on what the memo held. Thread-safe: a diagnosis predicts on
// several threads. Past kMaxAnswers it starts afresh, which bounds its memory (about 64 bytes an
// answer).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>

namespace railsim::models {

class RecurrenceMemo {
 public:
  static constexpr std::size_t kMaxAnswers = std::size_t{1} << 20;

  // The answer kept for `inputs`, or else evaluate()'s, kept.
  template <typename Evaluate>
  double answer(std::span<const std::uint64_t> inputs, Evaluate&& evaluate) {
    const Digest key = digest(inputs);
    if (const std::optional<double> known = find(key)) {
      return *known;
    }
    const double value = evaluate();
    keep(key, value);
    return value;
  }

  std::size_t size() const;

 private:
  using Digest = std::array<std::uint64_t, 2>;

  struct DigestHash {
    std::size_t operator()(const Digest& d) const { return static_cast<std::size_t>(d[0]); }
  };

  static Digest digest(std::span<const std::uint64_t> inputs);
  std::optional<double> find(const Digest& key) const;
  void keep(const Digest& key, double value);

  mutable std::mutex mutex_;
  std::unordered_map<Digest, double, DigestHash> answers_;
};

}  // namespace railsim::models
