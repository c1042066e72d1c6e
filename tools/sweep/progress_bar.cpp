// File: tools/sweep/progress_bar.cpp
#include "tools/sweep/progress_bar.hpp"

#include <fmt/format.h>

#include <cmath>

namespace railsim::tools::sweep {
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

std::string progress_line(std::size_t done, std::size_t total, double elapsed_s) {
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
  return fmt::format("[{}] {}/{}  {:.1f} pt/s  ETA {}", bar, done, total, rate, eta_text(eta));
}

ProgressBar::ProgressBar(std::size_t total, std::ostream* out)
    : total_(total), out_(out), start_(Clock::now()), last_draw_(start_) {}

void ProgressBar::advance() {
  const std::size_t done = ++done_;
  if (out_ == nullptr) {
    return;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  if (Clock::now() - last_draw_ >= kRedrawInterval) {
    draw(done);
  }
}

void ProgressBar::finish() {
  if (out_ == nullptr) {
    return;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  draw(done_.load());
  *out_ << "\n" << std::flush;
}

void ProgressBar::draw(std::size_t done) {
  const std::chrono::duration<double> elapsed = Clock::now() - start_;
  const std::string line = progress_line(done, total_, elapsed.count());
  const std::size_t pad = last_width_ > line.size() ? last_width_ - line.size() : 0;
  *out_ << "\r" << line << std::string(pad, ' ') << std::flush;
  last_width_ = line.size();
  last_draw_ = Clock::now();
}

}  // namespace railsim::tools::sweep
