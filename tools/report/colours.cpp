// File: tools/report/colours.cpp
#include "tools/report/colours.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace railsim::tools::report {
namespace {

// Okabe & Ito (2008), ordered for contrast on white; yellow (#f0e442) last, as it is faint.
constexpr std::array<const char*, 8> kSeriesColours = {"#0072b2", "#e69f00", "#009e73", "#d55e00",
                                                       "#cc79a7", "#56b4e9", "#000000", "#f0e442"};

struct Rgb {
  int r;
  int g;
  int b;
};

// viridis (matplotlib) sampled at 0, 1/8, ..., 1.
constexpr std::array<Rgb, 9> kViridis = {{{0x44, 0x01, 0x54},
                                          {0x47, 0x2d, 0x7b},
                                          {0x3b, 0x52, 0x8b},
                                          {0x2c, 0x72, 0x8e},
                                          {0x21, 0x91, 0x8c},
                                          {0x28, 0xae, 0x80},
                                          {0x5e, 0xc9, 0x62},
                                          {0xad, 0xdc, 0x30},
                                          {0xfd, 0xe7, 0x25}}};

int mix(int a, int b, double t) { return static_cast<int>(std::lround(a + (b - a) * t)); }

}  // namespace

std::string series_colour(std::size_t index) {
  return kSeriesColours[index % kSeriesColours.size()];
}

std::size_t series_colour_count() { return kSeriesColours.size(); }

std::string sequential_colour(double fraction) {
  if (std::isnan(fraction)) {
    fraction = 0.0;
  }
  const double position = std::clamp(fraction, 0.0, 1.0) * (kViridis.size() - 1);
  const auto below = std::min(static_cast<std::size_t>(position), kViridis.size() - 2);
  const double t = position - static_cast<double>(below);
  const Rgb& a = kViridis[below];
  const Rgb& b = kViridis[below + 1];
  return fmt::format("#{:02x}{:02x}{:02x}", mix(a.r, b.r, t), mix(a.g, b.g, t), mix(a.b, b.b, t));
}

bool sequential_colour_is_dark(double fraction) { return fraction < 0.55; }

}  // namespace railsim::tools::report
