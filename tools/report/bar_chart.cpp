// File: tools/report/bar_chart.cpp
#include "tools/report/bar_chart.hpp"

#include "tools/report/axis.hpp"
#include "tools/report/chart_frame.hpp"
#include "tools/report/colours.hpp"
#include "tools/report/svg_elements.hpp"
#include "tools/report/xml_escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace railsim::tools::report {
namespace {

constexpr double kLabelFont = 11.0;
constexpr const char* kReferenceColour = "#d55e00";

AxisTicks value_ticks(const BarChart& chart) {
  double lo = 0.0;
  double hi = 0.0;
  for (const Bar& bar : chart.bars) {
    if (std::isfinite(bar.value)) {
      lo = std::min(lo, bar.value);
      hi = std::max(hi, bar.value);
    }
  }
  if (chart.reference && std::isfinite(*chart.reference)) {
    lo = std::min(lo, *chart.reference);
    hi = std::max(hi, *chart.reference);
  }
  return make_ticks(AxisScale::kLinear, lo, hi, true);
}

std::string draw_bars(const BarChart& chart, const PlotArea& area, const AxisMap& map) {
  const double slot =
      area.width() / static_cast<double>(std::max<std::size_t>(chart.bars.size(), 1));
  double widest = 0.0;
  for (const Bar& bar : chart.bars) {
    widest = std::max(widest, text_width(bar.label, kLabelFont));
  }
  const auto stride =
      std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil((widest + 6.0) / slot)));
  const std::string unit = chart.value_unit.empty() ? "" : " " + chart.value_unit;
  std::string out = "<g class=\"bars\">\n";
  const double zero = map.to_pixel(0.0);
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const Bar& bar = chart.bars[i];
    const double x = area.left + slot * static_cast<double>(i);
    if (i % stride == 0) {
      out += svg_text(x + slot / 2.0, area.bottom + 18.0, bar.label,
                      {.anchor = Anchor::kMiddle, .size = kLabelFont});
    }
    if (!std::isfinite(bar.value)) {
      out += svg_text(x + slot / 2.0, zero - 4.0, "n/a",
                      {.anchor = Anchor::kMiddle, .size = kLabelFont, .fill = "#888"});
      continue;
    }
    const double y = map.to_pixel(bar.value);
    const std::string tooltip =
        xml_escape(fmt::format("{}: {}{}", bar.label, format_number(bar.value), unit));
    out += fmt::format(
        "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">"
        "<title>{}</title></rect>\n",
        format_coordinate(x + slot * 0.15), format_coordinate(std::min(y, zero)),
        format_coordinate(slot * 0.7), format_coordinate(std::abs(zero - y)), series_colour(0),
        tooltip);
  }
  out += "</g>\n";
  return out;
}

std::string draw_reference(const BarChart& chart, const PlotArea& area, const AxisMap& map) {
  if (!chart.reference || !std::isfinite(*chart.reference)) {
    return {};
  }
  const double y = map.to_pixel(*chart.reference);
  std::string out = fmt::format(
      "<line class=\"reference\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
      "stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n",
      format_coordinate(area.left), format_coordinate(y), format_coordinate(area.right),
      format_coordinate(y), kReferenceColour);
  const std::string text =
      chart.reference_label.empty()
          ? format_number(*chart.reference)
          : fmt::format("{} {}", chart.reference_label, format_number(*chart.reference));
  out += svg_text(area.right, y - 5.0, text,
                  {.anchor = Anchor::kEnd, .size = kLabelFont, .fill = kReferenceColour});
  return out;
}

}  // namespace

std::string svg_bar_chart(const BarChart& chart) {
  const AxisTicks ticks = value_ticks(chart);
  PlotArea area;
  area.left = 36.0 + y_label_width(ticks, TickFormat::kNumber) + 8.0;
  area.top = chart.title.empty() ? 16.0 : 44.0;
  area.right = chart.width - 16.0;
  area.bottom = chart.height - 52.0;
  const AxisMap map(AxisScale::kLinear, ticks.lo, ticks.hi, area.bottom, area.top);

  std::string out = svg_begin(chart.width, chart.height, chart.title);
  out += draw_title(chart.width, chart.title);
  out += draw_y_axis(ticks, map, area, TickFormat::kNumber,
                     axis_title(chart.value_label, chart.value_unit), 16.0);
  out += svg_line(area.left, area.bottom, area.right, area.bottom, "#555555");
  out += draw_bars(chart, area, map);
  out += draw_reference(chart, area, map);
  if (!chart.category_title.empty()) {
    out += svg_text((area.left + area.right) / 2.0, area.bottom + 40.0, chart.category_title,
                    {.anchor = Anchor::kMiddle, .css_class = "axis-title"});
  }
  out += svg_end();
  return out;
}

}  // namespace railsim::tools::report
