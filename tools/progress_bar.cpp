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

}  // namespace

std::string duration_text(double seconds) {
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
                     duration_text(eta));
}

StatusLine::StatusLine(std::ostream* out, std::chrono::milliseconds show_after)
    : out_(out),
      start_(Clock::now()),
      first_draw_(start_ + show_after),
      last_draw_(start_ - kRedrawInterval) {}

StatusLine::~StatusLine() {
  if (drawn_ && !ended_) {
    *out_ << "\n" << std::flush;
  }
}

void StatusLine::update(const Text& text) {
  if (out_ == nullptr) {
    return;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  const Clock::time_point now = Clock::now();
  if (now >= first_draw_ && now - last_draw_ >= kRedrawInterval) {
    draw(text);
  }
}

void StatusLine::finish(const Text& text) {
  if (out_ == nullptr) {
    return;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!drawn_ && Clock::now() < first_draw_) {
    return;
  }
  draw(text);
  *out_ << "\n" << std::flush;
  ended_ = true;
}

void StatusLine::draw(const Text& text) {
  const std::chrono::duration<double> elapsed = Clock::now() - start_;
  const std::string line = text(elapsed.count());
  const std::size_t pad = last_width_ > line.size() ? last_width_ - line.size() : 0;
  *out_ << "\r" << line << std::string(pad, ' ') << std::flush;
  last_width_ = line.size();
  last_draw_ = Clock::now();
  drawn_ = true;
}

ProgressBar::ProgressBar(std::size_t total,
                         std::ostream* out,
                         std::string unit,
                         std::chrono::milliseconds show_after)
    : total_(total), unit_(std::move(unit)), line_(out, show_after) {}

StatusLine::Text ProgressBar::text(std::size_t done) const {
  return [this, done](double elapsed_s) {
    return progress_line(done, total_.load(), elapsed_s, unit_);
  };
}

void ProgressBar::advance() { line_.update(text(++done_)); }

void ProgressBar::finish() { line_.finish(text(done_.load())); }

std::ostream* progress_stream(bool quiet) {
  return !quiet && isatty(STDERR_FILENO) != 0 ? &std::cerr : nullptr;
}

void add_quiet_option(boost::program_options::options_description& options, bool& quiet) {
  options.add_options()("quiet,q", boost::program_options::bool_switch(&quiet),
                        "no progress line on stderr (it is shown only on a terminal)");
}

}  // namespace railsim::tools
