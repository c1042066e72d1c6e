// File: tools/report/chart_frame.cpp
#include "tools/report/chart_frame.hpp"

#include "tools/report/svg_elements.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace railsim::tools::report {
namespace {

constexpr double kTickFont = 11.0;
constexpr double kAxisTitleFont = 12.0;
constexpr double kTitleFont = 15.0;
constexpr double kMajorTick = 5.0;
constexpr double kMinorTick = 3.0;
constexpr const char* kGridColour = "#e3e3e3";
constexpr const char* kAxisColour = "#555555";

// Every how many major labels to write, so that neighbours do not overlap: `room` is the
// smallest pixel distance between adjacent majors, `widest` the widest label.
std::size_t label_stride(double room, double widest) {
  if (room <= 0.0) {
    return 1;
  }
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil((widest + 6.0) / room)));
}

}  // namespace

std::string axis_title(std::string_view label, std::string_view unit) {
  if (unit.empty()) {
    return std::string(label);
  }
  if (label.empty()) {
    return std::string(unit);
  }
  return fmt::format("{} ({})", label, unit);
}

std::string draw_title(double width, std::string_view title) {
  if (title.empty()) {
    return {};
  }
  return svg_text(
      width / 2.0, 24.0, title,
      {.anchor = Anchor::kMiddle, .size = kTitleFont, .bold = true, .css_class = "title"});
}

std::string draw_x_axis(const AxisTicks& ticks,
                        const AxisMap& map,
                        const PlotArea& area,
                        TickFormat format,
                        std::string_view title) {
  std::vector<double> majors;
  std::vector<std::string> labels;
  std::string out = "<g class=\"x-axis\">\n";
  for (const Tick& tick : ticks.ticks) {
    const double x = map.to_pixel(tick.value);
    if (!tick.major) {
      out += svg_line(x, area.bottom, x, area.bottom + kMinorTick, kAxisColour);
      continue;
    }
    out += svg_line(x, area.top, x, area.bottom, kGridColour);
    out += svg_line(x, area.bottom, x, area.bottom + kMajorTick, kAxisColour);
    majors.push_back(x);
    labels.push_back(format_tick(tick.value, format, ticks));
  }
  double room = area.width();
  double widest = 0.0;
  for (std::size_t i = 0; i < majors.size(); ++i) {
    widest = std::max(widest, text_width(labels[i], kTickFont));
    if (i > 0) {
      room = std::min(room, majors[i] - majors[i - 1]);
    }
  }
  const std::size_t stride = label_stride(room, widest);
  for (std::size_t i = 0; i < majors.size(); i += stride) {
    out += svg_text(majors[i], area.bottom + kMajorTick + 13.0, labels[i],
                    {.anchor = Anchor::kMiddle, .size = kTickFont, .fill = "#333"});
  }
  out += svg_line(area.left, area.bottom, area.right, area.bottom, kAxisColour);
  if (!title.empty()) {
    out += svg_text((area.left + area.right) / 2.0, area.bottom + 38.0, title,
                    {.anchor = Anchor::kMiddle, .size = kAxisTitleFont, .css_class = "axis-title"});
  }
  out += "</g>\n";
  return out;
}

std::string draw_y_axis(const AxisTicks& ticks,
                        const AxisMap& map,
                        const PlotArea& area,
                        TickFormat format,
                        std::string_view title,
                        double title_x) {
  std::vector<double> majors;
  std::vector<std::string> labels;
  std::string out = "<g class=\"y-axis\">\n";
  for (const Tick& tick : ticks.ticks) {
    const double y = map.to_pixel(tick.value);
    if (!tick.major) {
      out += svg_line(area.left - kMinorTick, y, area.left, y, kAxisColour);
      continue;
    }
    out += svg_line(area.left, y, area.right, y, kGridColour);
    out += svg_line(area.left - kMajorTick, y, area.left, y, kAxisColour);
    majors.push_back(y);
    labels.push_back(format_tick(tick.value, format, ticks));
  }
  double room = area.height();
  for (std::size_t i = 1; i < majors.size(); ++i) {
    room = std::min(room, std::abs(majors[i] - majors[i - 1]));
  }
  const std::size_t stride = label_stride(room, kTickFont);
  for (std::size_t i = 0; i < majors.size(); i += stride) {
    out += svg_text(area.left - kMajorTick - 3.0, majors[i] + 4.0, labels[i],
                    {.anchor = Anchor::kEnd, .size = kTickFont, .fill = "#333"});
  }
  out += svg_line(area.left, area.top, area.left, area.bottom, kAxisColour);
  if (!title.empty()) {
    out += svg_text(title_x, (area.top + area.bottom) / 2.0, title,
                    {.anchor = Anchor::kMiddle,
                     .size = kAxisTitleFont,
                     .rotate = -90.0,
                     .css_class = "axis-title"});
  }
  out += "</g>\n";
  return out;
}

double y_label_width(const AxisTicks& ticks, TickFormat format) {
  double widest = 0.0;
  for (const Tick& tick : ticks.ticks) {
    if (tick.major) {
      widest = std::max(widest, text_width(format_tick(tick.value, format, ticks), kTickFont));
    }
  }
  return widest;
}

}  // namespace railsim::tools::report
