// File: tools/report/line_chart.hpp
// svg_line_chart: several named series of (x, y) points as a standalone SVG document, the
// report's main figure (busbw against message size, one series per design point), or a scatter
// (predicted against measured, with the diagonal as a line). Linear, log10 or log2 axes with nice
// ticks, a legend, and a colour and marker shape per series.
#pragma once

#include "tools/report/axis.hpp"
#include "tools/report/chart_frame.hpp"

#include <string>
#include <vector>

namespace railsim::tools::report {

struct Point {
  double x = 0.0;
  double y = 0.0;  // NaN: no value here; the series' line breaks around it
};

struct Series {
  std::string name;           // the legend entry
  std::vector<Point> points;  // any order; drawn sorted by x
  bool line = true;           // join the points (false: a scatter of markers)
  bool markers = true;        // a marker per point (false: a reference line alone)
};

struct AxisOptions {
  std::string label;  // "message size"
  std::string unit;   // "B", "GB/s"; shown as "message size (B)"
  AxisScale scale = AxisScale::kLinear;
  TickFormat format = TickFormat::kNumber;
  bool include_zero = false;  // linear axes only: start the range at 0 (usual for bandwidth)
};

// A chart description. The legend stands right of the plot, or below it, the document growing to
// hold it, when a name would not fit a third of the width. Points that an axis cannot show (NaN or
// infinite, <= 0 on a log axis) are gaps: the line stops before them and resumes after, and they
// get no marker.
struct LineChart {
  std::string title;
  AxisOptions x;
  AxisOptions y;
  std::vector<Series> series;
  double width = 720.0;   // px
  double height = 420.0;  // px, without a legend below the plot
};

// The SVG document (with xmlns, viewBox, width and height; no XML declaration, so it can also
// be inlined into HTML as is). Each data point is one element of class "marker" with a <title>
// tooltip; each legend entry is a <g class="legend-entry">. Deterministic for equal input.
[[nodiscard]] std::string svg_line_chart(const LineChart& chart);

// Where svg_line_chart draws the data: the x axis maps its domain onto [left, right], the y axis
// onto [bottom, top].
[[nodiscard]] PlotArea line_chart_plot_area(const LineChart& chart);

// The domains of the two axes svg_line_chart draws (the data range widened to nice ticks).
[[nodiscard]] AxisTicks line_chart_x_ticks(const LineChart& chart);
[[nodiscard]] AxisTicks line_chart_y_ticks(const LineChart& chart);

}  // namespace railsim::tools::report
