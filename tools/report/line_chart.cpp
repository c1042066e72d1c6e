// File: tools/report/line_chart.cpp
#include "tools/report/line_chart.hpp"

#include "tools/report/colours.hpp"
#include "tools/report/svg_elements.hpp"
#include "tools/report/xml_escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace railsim::tools::report {
namespace {

constexpr double kMarkerRadius = 4.0;
constexpr double kLegendFont = 12.0;
constexpr double kLegendRow = 18.0;
constexpr double kLegendSample = 26.0;  // width of the line sample before each legend name

enum class Marker { kCircle, kSquare, kTriangleUp, kDiamond, kTriangleDown, kPlus, kCross };

constexpr std::array<Marker, 7> kMarkers = {
    Marker::kCircle,       Marker::kSquare, Marker::kTriangleUp, Marker::kDiamond,
    Marker::kTriangleDown, Marker::kPlus,   Marker::kCross};

bool plottable(AxisScale scale, double value) {
  return std::isfinite(value) && (scale == AxisScale::kLinear || value > 0.0);
}

bool point_shown(const LineChart& chart, const Point& p) {
  return plottable(chart.x.scale, p.x) && plottable(chart.y.scale, p.y);
}

// Ticks over the values of one axis, with a default range when nothing can be shown.
AxisTicks ticks_over(const AxisOptions& axis, double lo, double hi) {
  if (lo > hi) {
    return axis.scale == AxisScale::kLinear ? make_ticks(axis.scale, 0.0, 1.0)
                                            : make_ticks(axis.scale, 1.0, 10.0);
  }
  return make_ticks(axis.scale, lo, hi, axis.include_zero);
}

// The marker of `shape` centred at (x, y), with the series colour and a tooltip.
std::string marker_element(Marker shape,
                           double x,
                           double y,
                           const std::string& colour,
                           const std::string& tooltip,
                           std::string_view css_class) {
  const double r = kMarkerRadius;
  const std::string child = tooltip.empty() ? "" : fmt::format("<title>{}</title>", tooltip);
  const auto c = [](double v) { return format_coordinate(v); };
  std::string d;
  switch (shape) {
    case Marker::kCircle: {
      const std::string end = child.empty() ? "/>\n" : fmt::format(">{}</circle>\n", child);
      return fmt::format("<circle class=\"{}\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"{}",
                         css_class, c(x), c(y), c(r), colour, end);
    }
    case Marker::kSquare:
      d = fmt::format("M{} {}H{}V{}H{}Z", c(x - r), c(y - r), c(x + r), c(y + r), c(x - r));
      break;
    case Marker::kTriangleUp:
      d = fmt::format("M{} {}L{} {}L{} {}Z", c(x), c(y - r * 1.2), c(x + r * 1.1), c(y + r * 0.8),
                      c(x - r * 1.1), c(y + r * 0.8));
      break;
    case Marker::kDiamond:
      d = fmt::format("M{} {}L{} {}L{} {}L{} {}Z", c(x), c(y - r * 1.3), c(x + r * 1.1), c(y), c(x),
                      c(y + r * 1.3), c(x - r * 1.1), c(y));
      break;
    case Marker::kTriangleDown:
      d = fmt::format("M{} {}L{} {}L{} {}Z", c(x), c(y + r * 1.2), c(x + r * 1.1), c(y - r * 0.8),
                      c(x - r * 1.1), c(y - r * 0.8));
      break;
    case Marker::kPlus:
      d = fmt::format("M{} {}H{}M{} {}V{}", c(x - r * 1.2), c(y), c(x + r * 1.2), c(x),
                      c(y - r * 1.2), c(y + r * 1.2));
      break;
    case Marker::kCross:
      d = fmt::format("M{} {}L{} {}M{} {}L{} {}", c(x - r), c(y - r), c(x + r), c(y + r), c(x - r),
                      c(y + r), c(x + r), c(y - r));
      break;
  }
  const bool stroked = shape == Marker::kPlus || shape == Marker::kCross;
  const std::string paint =
      stroked ? fmt::format("fill=\"none\" stroke=\"{}\" stroke-width=\"2\"", colour)
              : fmt::format("fill=\"{}\"", colour);
  const std::string end = child.empty() ? "/>\n" : fmt::format(">{}</path>\n", child);
  return fmt::format("<path class=\"{}\" d=\"{}\" {}{}", css_class, d, paint, end);
}

std::string value_text(double value, TickFormat format) {
  return format == TickFormat::kBytes ? format_bytes(value) : format_number(value);
}

double widest_legend_entry(const LineChart& chart) {
  double widest = 0.0;
  for (const Series& s : chart.series) {
    widest = std::max(widest, kLegendSample + 8.0 + text_width(s.name, kLegendFont) + 8.0);
  }
  return widest;
}

// Long names (an explanation of a diagnosis) would be cut off beside the plot.
bool legend_below(const LineChart& chart) { return widest_legend_entry(chart) > chart.width / 3.0; }

double legend_width(const LineChart& chart) {
  return chart.series.empty() || legend_below(chart) ? 0.0 : widest_legend_entry(chart);
}

double document_height(const LineChart& chart) {
  return legend_below(chart)
             ? chart.height + kLegendRow * static_cast<double>(chart.series.size()) + 8.0
             : chart.height;
}

// One series: its line, broken into runs at points that cannot be shown, then its markers.
std::string draw_series(const LineChart& chart,
                        const Series& series,
                        std::size_t index,
                        const AxisMap& x_map,
                        const AxisMap& y_map) {
  std::vector<Point> sorted = series.points;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Point& a, const Point& b) { return a.x < b.x; });
  const std::string colour = series_colour(index);
  const Marker shape = kMarkers[index % kMarkers.size()];
  std::string out = fmt::format("<g class=\"series\" data-name=\"{}\">\n", xml_escape(series.name));
  std::string run;
  std::size_t run_points = 0;
  const auto flush = [&]() {
    if (run_points >= 2) {
      out += fmt::format(
          "<polyline class=\"line\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
          "points=\"{}\"/>\n",
          colour, run);
    }
    run.clear();
    run_points = 0;
  };
  for (const Point& p : sorted) {
    if (!series.line) {
      break;
    }
    if (!point_shown(chart, p)) {
      flush();
      continue;
    }
    if (run_points > 0) {
      run += ' ';
    }
    run += fmt::format("{},{}", format_coordinate(x_map.to_pixel(p.x)),
                       format_coordinate(y_map.to_pixel(p.y)));
    ++run_points;
  }
  flush();
  for (const Point& p : sorted) {
    if (!series.markers || !point_shown(chart, p)) {
      continue;
    }
    const std::string tooltip =
        xml_escape(fmt::format("{}: {}, {}", series.name, value_text(p.x, chart.x.format),
                               value_text(p.y, chart.y.format)));
    out +=
        marker_element(shape, x_map.to_pixel(p.x), y_map.to_pixel(p.y), colour, tooltip, "marker");
  }
  out += "</g>\n";
  return out;
}

std::string draw_legend(const LineChart& chart, const PlotArea& area) {
  if (chart.series.empty()) {
    return {};
  }
  std::string out = "<g class=\"legend\">\n";
  const bool below = legend_below(chart);
  const double x = below ? area.left : area.right + 12.0;
  const double top = below ? chart.height + 6.0 : area.top + 6.0;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const Series& series = chart.series[i];
    const double y = top + kLegendRow * static_cast<double>(i);
    const std::string colour = series_colour(i);
    out += "<g class=\"legend-entry\">\n";
    if (series.line) {
      out += svg_line(x, y, x + kLegendSample, y, colour, 2.0);
    }
    if (series.markers) {
      out += marker_element(kMarkers[i % kMarkers.size()], x + kLegendSample / 2.0, y, colour, "",
                            "legend-marker");
    }
    out += svg_text(x + kLegendSample + 6.0, y + 4.0, series.name, {.size = kLegendFont});
    out += "</g>\n";
  }
  out += "</g>\n";
  return out;
}

}  // namespace

AxisTicks line_chart_x_ticks(const LineChart& chart) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const Series& s : chart.series) {
    for (const Point& p : s.points) {
      if (point_shown(chart, p)) {
        lo = std::min(lo, p.x);
        hi = std::max(hi, p.x);
      }
    }
  }
  return ticks_over(chart.x, lo, hi);
}

AxisTicks line_chart_y_ticks(const LineChart& chart) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const Series& s : chart.series) {
    for (const Point& p : s.points) {
      if (point_shown(chart, p)) {
        lo = std::min(lo, p.y);
        hi = std::max(hi, p.y);
      }
    }
  }
  return ticks_over(chart.y, lo, hi);
}

PlotArea line_chart_plot_area(const LineChart& chart) {
  const double y_labels = y_label_width(line_chart_y_ticks(chart), chart.y.format);
  PlotArea area;
  area.left = 36.0 + y_labels + 8.0;
  area.top = chart.title.empty() ? 16.0 : 44.0;
  area.right = chart.width - 16.0 - legend_width(chart);
  area.bottom = chart.height - 52.0;
  return area;
}

std::string svg_line_chart(const LineChart& chart) {
  const PlotArea area = line_chart_plot_area(chart);
  const AxisTicks x_ticks = line_chart_x_ticks(chart);
  const AxisTicks y_ticks = line_chart_y_ticks(chart);
  const AxisMap x_map(chart.x.scale, x_ticks.lo, x_ticks.hi, area.left, area.right);
  const AxisMap y_map(chart.y.scale, y_ticks.lo, y_ticks.hi, area.bottom, area.top);

  std::string out = svg_begin(chart.width, document_height(chart), chart.title);
  out += draw_title(chart.width, chart.title);
  out += draw_x_axis(x_ticks, x_map, area, chart.x.format, axis_title(chart.x.label, chart.x.unit));
  out += draw_y_axis(y_ticks, y_map, area, chart.y.format, axis_title(chart.y.label, chart.y.unit),
                     16.0);
  bool any = false;
  for (const Series& s : chart.series) {
    any = any || std::any_of(s.points.begin(), s.points.end(),
                             [&](const Point& p) { return point_shown(chart, p); });
  }
  if (!any) {
    out += svg_text((area.left + area.right) / 2.0, (area.top + area.bottom) / 2.0, "no data",
                    {.anchor = Anchor::kMiddle, .fill = "#888"});
  }
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    out += draw_series(chart, chart.series[i], i, x_map, y_map);
  }
  out += draw_legend(chart, area);
  out += svg_end();
  return out;
}

}  // namespace railsim::tools::report
