// File: tools/progress_bar.hpp
// A progress line for long work, `[=====>    ] 37/120  3.1 pt/s  ETA 27s`, redrawn in place
// with \r at most ten times a second, on stderr when it is a terminal (progress_stream): a
// person at a terminal sees how long is left, and a batch job's log stays clean. Nothing is
// drawn for work that ends within half a second.
#pragma once

#include <boost/program_options.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <ostream>
#include <string>

namespace railsim::tools {

// The line for `done` of `total` items after `elapsed_s` seconds (no \r, no newline); `unit`
// names an item in the rate ("pt/s", "size/s").
std::string progress_line(std::size_t done,
                          std::size_t total,
                          double elapsed_s,
                          const std::string& unit = "pt");

// Counts finished items from any thread. With a null stream it only counts.
class ProgressBar {
 public:
  static constexpr std::chrono::milliseconds kShowAfter{500};

  ProgressBar(std::size_t total,
              std::ostream* out,
              std::string unit = "pt",
              std::chrono::milliseconds show_after = kShowAfter);

  // Ends a drawn line that finish() did not (the work failed), so that an error starts a line.
  ~ProgressBar();

  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // One more item done; redraws when the last draw is 100 ms old and `show_after` has passed.
  void advance();

  // `items` more to do, found while the work runs.
  void add_work(std::size_t items) { total_ += items; }

  // Draws the final state and ends the line, if anything was drawn or `show_after` has passed;
  // no effect without a stream. Call once, after every advance().
  void finish();

  std::size_t done() const { return done_.load(); }

 private:
  using Clock = std::chrono::steady_clock;

  void draw(std::size_t done);  // with mutex_ held

  std::atomic<std::size_t> total_;
  std::ostream* out_;
  std::string unit_;
  std::atomic<std::size_t> done_{0};
  Clock::time_point start_;
  Clock::time_point first_draw_;  // start_ + show_after
  std::mutex mutex_;
  Clock::time_point last_draw_;
  std::size_t last_width_ = 0;  // of the line drawn last, to blank out what a shorter one leaves
  bool drawn_ = false;
  bool ended_ = false;  // the line was ended
};

// Where a command draws its progress: stderr when it is a terminal and --quiet was not given,
// else nowhere.
std::ostream* progress_stream(bool quiet);

// Adds --quiet (no progress line) to `options`.
void add_quiet_option(boost::program_options::options_description& options, bool& quiet);

}  // namespace railsim::tools
