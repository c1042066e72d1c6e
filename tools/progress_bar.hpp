// File: tools/progress_bar.hpp
// A progress line for long work, `[=====>    ] 37/120  3.1 pt/s  ETA 27s`, or a status line for
// work with no known end (an iterative fit), redrawn in place with \r at most ten times a second,
// on stderr when it is a terminal (progress_stream): a person at a terminal sees how long is
// left, and a batch job's log stays clean. Nothing is drawn for work that ends within half a
// second.
#pragma once

#include <boost/program_options.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>

namespace railsim::tools {

// "42s", "3m05s", "1h02m": a duration as a progress line shows it ("?" when not finite).
std::string duration_text(double seconds);

// The line for `done` of `total` items after `elapsed_s` seconds (no \r, no newline); `unit`
// names an item in the rate ("pt/s", "size/s").
std::string progress_line(std::size_t done,
                          std::size_t total,
                          double elapsed_s,
                          const std::string& unit = "pt");

// A line of text redrawn in place with \r, at most ten times a second and only once `show_after`
// has passed, from any thread. With a null stream it draws nothing.
class StatusLine {
 public:
  static constexpr std::chrono::milliseconds kShowAfter{500};

  // The text to draw, given the seconds since the line was made.
  using Text = std::function<std::string(double elapsed_s)>;

  explicit StatusLine(std::ostream* out, std::chrono::milliseconds show_after = kShowAfter);

  // Ends a drawn line that finish() did not (the work failed), so that an error starts a line.
  ~StatusLine();

  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;

  // Redraws with `text` when the last draw is 100 ms old and `show_after` has passed.
  void update(const Text& text);

  // Draws `text` and ends the line, if anything was drawn or `show_after` has passed. Call once.
  void finish(const Text& text);

 private:
  using Clock = std::chrono::steady_clock;

  void draw(const Text& text);  // with mutex_ held

  std::ostream* out_;
  Clock::time_point start_;
  Clock::time_point first_draw_;  // start_ + show_after
  std::mutex mutex_;
  Clock::time_point last_draw_;
  std::size_t last_width_ = 0;  // of the line drawn last, to blank out what a shorter one leaves
  bool drawn_ = false;
  bool ended_ = false;  // the line was ended
};

// Counts finished items from any thread, on a StatusLine of progress_line(). With a null stream
// it only counts.
class ProgressBar {
 public:
  static constexpr std::chrono::milliseconds kShowAfter = StatusLine::kShowAfter;

  ProgressBar(std::size_t total,
              std::ostream* out,
              std::string unit = "pt",
              std::chrono::milliseconds show_after = kShowAfter);

  // One more item done; redraws when due.
  void advance();

  // `items` more to do, found while the work runs.
  void add_work(std::size_t items) { total_ += items; }

  // Draws the final state and ends the line (StatusLine::finish). Call once, after every
  // advance().
  void finish();

  std::size_t done() const { return done_.load(); }

 private:
  StatusLine::Text text(std::size_t done) const;

  std::atomic<std::size_t> total_;
  std::string unit_;
  std::atomic<std::size_t> done_{0};
  StatusLine line_;
};

// Where a command draws its progress: stderr when it is a terminal and --quiet was not given,
// else nowhere.
std::ostream* progress_stream(bool quiet);

// Adds --quiet (no progress line) to `options`.
void add_quiet_option(boost::program_options::options_description& options, bool& quiet);

}  // namespace railsim::tools
