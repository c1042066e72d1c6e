// File: tools/progress_bar.cpp
#include "tools/progress_bar.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <unistd.h>

namespace railsim::tools {
namespace {

constexpr std::size_t kBarWidth = 30;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

std::string eta_text(double seconds) {
  if (!std::isfinite(seconds)) {
    return "?";
  }
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s < 60) {
    return fmt::format("{}s", s);
  }
  if (s < 3600) {
    return fmt::format("{}m{:02}s", s / 60, s % 60);
  }
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

}  // namespace

std::string progress_line(std::size_t done,
                          std::size_t total,
                          double elapsed_s,
                          const std::string& unit) {
  const std::size_t filled = total == 0 ? kBarWidth : done * kBarWidth / total;
  std::string bar(kBarWidth, ' ');
  for (std::size_t i = 0; i < filled; ++i) {
    bar[i] = '=';
  }
  if (filled > 0 && filled < kBarWidth) {
    bar[filled - 1] = '>';
  }
  const double rate = elapsed_s > 0.0 ? static_cast<double>(done) / elapsed_s : 0.0;
  const double eta = rate > 0.0 ? static_cast<double>(total - done) / rate : NAN;
  return fmt::format("[{}] {}/{}  {:.1f} {}/s  ETA {}", bar, done, total, rate, unit,
                     eta_text(eta));
}

ProgressBar::ProgressBar(std::size_t total,
                         std::ostream* out,
                         std::string unit,
                         std::chrono::milliseconds show_after)
    : total_(total),
      out_(out),
      unit_(std::move(unit)),
      start_(Clock::now()),
      first_draw_(start_ + show_after),
      last_draw_(start_ - kRedrawInterval) {}

ProgressBar::~ProgressBar() {
  if (drawn_ && !ended_) {
    *out_ << "\n" << std::flush;
  }
}

void ProgressBar::advance() {
  const std::size_t done = ++done_;
  if (out_ == nullptr) {
    return;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  const Clock::time_point now = Clock::now();
  if (now >= first_draw_ && now - last_draw_ >= kRedrawInterval) {
    draw(done);
  }
}

void ProgressBar::finish() {
  if (out_ == nullptr) {
    return;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!drawn_ && Clock::now() < first_draw_) {
    return;
  }
  draw(done_.load());
  *out_ << "\n" << std::flush;
  ended_ = true;
}

void ProgressBar::draw(std::size_t done) {
  const std::chrono::duration<double> elapsed = Clock::now() - start_;
  const std::string line = progress_line(done, total_.load(), elapsed.count(), unit_);
  const std::size_t pad = last_width_ > line.size() ? last_width_ - line.size() : 0;
  *out_ << "\r" << line << std::string(pad, ' ') << std::flush;
  last_width_ = line.size();
  last_draw_ = Clock::now();
  drawn_ = true;
}

std::ostream* progress_stream(bool quiet) {
  return !quiet && isatty(STDERR_FILENO) != 0 ? &std::cerr : nullptr;
}

void add_quiet_option(boost::program_options::options_description& options, bool& quiet) {
  options.add_options()("quiet,q", boost::program_options::bool_switch(&quiet),
                        "no progress line on stderr (it is shown only on a terminal)");
}

}  // namespace railsim::tools
