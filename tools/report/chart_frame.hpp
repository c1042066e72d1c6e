// File: tools/report/chart_frame.hpp
// The frame that the line and bar charts share: the plot area rectangle, the chart title, and
// an axis drawn from its ticks (grid lines, tick marks, labels thinned when they would overlap,
// and the axis label with its unit).
#pragma once

#include "tools/report/axis.hpp"

#include <string>
#include <string_view>

namespace railsim::tools::report {

// The rectangle data is drawn in, in SVG pixels (y grows downwards).
struct PlotArea {
  double left = 0.0;
  double top = 0.0;
  double right = 0.0;
  double bottom = 0.0;

  [[nodiscard]] double width() const { return right - left; }

  [[nodiscard]] double height() const { return bottom - top; }
};

// An axis label and its unit, written "label (unit)"; either may be empty.
[[nodiscard]] std::string axis_title(std::string_view label, std::string_view unit);

// The chart title, centred at the top of a chart `width` wide.
[[nodiscard]] std::string draw_title(double width, std::string_view title);

// Vertical grid lines, tick marks below the area and labels under them, then `title` centred
// below the labels. `map` runs from area.left to area.right.
[[nodiscard]] std::string draw_x_axis(const AxisTicks& ticks,
                                      const AxisMap& map,
                                      const PlotArea& area,
                                      TickFormat format,
                                      std::string_view title);

// Horizontal grid lines, tick marks left of the area with labels, and `title` rotated along the
// left edge at x = `title_x`. `map` runs from area.bottom to area.top.
[[nodiscard]] std::string draw_y_axis(const AxisTicks& ticks,
                                      const AxisMap& map,
                                      const PlotArea& area,
                                      TickFormat format,
                                      std::string_view title,
                                      double title_x);

// The widest y tick label of `ticks` in px, to size the left margin.
[[nodiscard]] double y_label_width(const AxisTicks& ticks, TickFormat format);

}  // namespace railsim::tools::report
