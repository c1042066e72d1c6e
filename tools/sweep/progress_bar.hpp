// File: tools/sweep/progress_bar.hpp
// A progress line for a long sweep, `[=====>    ] 37/120  3.1 pt/s  ETA 27s`, redrawn in place
// with \r at most ten times a second; the command shows it only when stderr is a terminal, so
// logs of batch jobs stay clean.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <ostream>
#include <string>

namespace railsim::tools::sweep {

// The line for `done` of `total` points after `elapsed_s` seconds (no \r, no newline).
std::string progress_line(std::size_t done, std::size_t total, double elapsed_s);

// Counts finished points from any thread. With a null stream it only counts.
class ProgressBar {
 public:
  ProgressBar(std::size_t total, std::ostream* out);

  // One more point done; redraws when the last draw is 100 ms old.
  void advance();

  // Draws the final state and ends the line; no effect without a stream. Call once, after
  // every advance().
  void finish();

  std::size_t done() const { return done_.load(); }

 private:
  using Clock = std::chrono::steady_clock;

  void draw(std::size_t done);  // with mutex_ held

  std::size_t total_;
  std::ostream* out_;
  std::atomic<std::size_t> done_{0};
  Clock::time_point start_;
  std::mutex mutex_;
  Clock::time_point last_draw_;
  std::size_t last_width_ = 0;  // of the line drawn last, to blank out what a shorter one leaves
};

}  // namespace railsim::tools::sweep
