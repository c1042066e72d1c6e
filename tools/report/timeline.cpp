// File: tools/report/timeline.cpp
#include "tools/report/timeline.hpp"

#include "tools/report/axis.hpp"
#include "tools/report/chart_frame.hpp"
#include "tools/report/colours.hpp"
#include "tools/report/svg_elements.hpp"
#include "tools/report/xml_escape.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace railsim::tools::report {
namespace {

constexpr double kRowHeight = 16.0;
constexpr double kBarHeight = 11.0;
constexpr double kLabelFont = 11.0;
constexpr double kLegendRow = 18.0;
constexpr double kLegendSwatch = 14.0;

std::string draw_legend(const Timeline& t, double left, double top) {
  std::string out = "<g class=\"legend\">\n";
  double x = left;
  const auto entry = [&](const std::string& name, std::string_view fill, std::string_view extra) {
    out += "<g class=\"legend-entry\">\n";
    out += svg_rect(x, top - kLegendSwatch + 3.0, kLegendSwatch, kLegendSwatch - 4.0, fill, extra);
    out += svg_text(x + kLegendSwatch + 5.0, top, name, {.size = kLabelFont});
    out += "</g>\n";
    x += kLegendSwatch + 5.0 + text_width(name, kLabelFont) + 16.0;
  };
  for (std::size_t c = 0; c < t.categories.size(); ++c) {
    entry(t.categories[c], series_colour(c), {});
  }
  if (std::any_of(t.bars.begin(), t.bars.end(),
                  [](const TimelineBar& b) { return b.highlighted; })) {
    entry(t.highlight_label, "none", R"(stroke="#111" stroke-width="2")");
  }
  out += "</g>\n";
  return out;
}

}  // namespace

std::string svg_timeline(const Timeline& t) {
  double labels = 0.0;
  for (const std::string& row : t.rows) {
    labels = std::max(labels, text_width(row, kLabelFont));
  }
  double end = 0.0;
  for (const TimelineBar& bar : t.bars) {
    end = std::max(end, bar.end);
  }
  PlotArea area;
  area.left = 16.0 + labels + 8.0;
  area.right = t.width - 16.0;
  area.top = t.title.empty() ? 16.0 : 44.0;
  area.bottom =
      area.top + kRowHeight * static_cast<double>(std::max<std::size_t>(t.rows.size(), 1));
  const double height = area.bottom + 52.0 + kLegendRow;
  const AxisTicks ticks = make_ticks(AxisScale::kLinear, 0.0, end > 0.0 ? end : 1.0, true);
  const AxisMap x(AxisScale::kLinear, ticks.lo, ticks.hi, area.left, area.right);

  std::string out = svg_begin(t.width, height, t.title);
  out += draw_title(t.width, t.title);
  out += draw_x_axis(ticks, x, area, TickFormat::kNumber, axis_title(t.axis_label, t.axis_unit));
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const double middle = area.top + kRowHeight * (static_cast<double>(r) + 0.5);
    out += svg_text(area.left - 6.0, middle + 4.0, t.rows[r],
                    {.anchor = Anchor::kEnd, .size = kLabelFont});
  }
  out += "<g class=\"bars\">\n";
  for (const TimelineBar& bar : t.bars) {
    const double top =
        area.top + kRowHeight * static_cast<double>(bar.row) + (kRowHeight - kBarHeight) / 2.0;
    const double left = x.to_pixel(bar.start);
    // At least half a pixel: a phase of a microsecond in a second-long step still shows.
    const double width = std::max(x.to_pixel(bar.end) - left, 0.5);
    out += fmt::format(
        "<rect class=\"bar{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}>"
        "<title>{}</title></rect>\n",
        bar.highlighted ? " highlighted" : "", format_coordinate(left), format_coordinate(top),
        format_coordinate(width), format_coordinate(kBarHeight), series_colour(bar.category),
        bar.highlighted ? R"( stroke="#111" stroke-width="1.5")" : "", xml_escape(bar.tooltip));
  }
  out += "</g>\n";
  out += draw_legend(t, area.left, height - 10.0);
  out += svg_end();
  return out;
}

}  // namespace railsim::tools::report
