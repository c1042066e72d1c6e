// File: tools/report/heatmap.cpp
#include "tools/report/heatmap.hpp"

#include "tools/report/axis.hpp"
#include "tools/report/chart_frame.hpp"
#include "tools/report/colours.hpp"
#include "tools/report/svg_elements.hpp"
#include "tools/report/xml_escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace railsim::tools::report {
namespace {

constexpr double kLabelFont = 10.0;
constexpr double kValueFont = 10.0;
constexpr double kMinCell = 2.0;
constexpr double kMaxCell = 28.0;
constexpr double kTargetGridHeight = 640.0;
constexpr double kLegendBar = 14.0;
constexpr double kLegendWidth = 96.0;  // bar, its labels and the rotated scale title
constexpr std::size_t kMaxTooltipCells = 10000;
constexpr int kLegendSlices = 64;

double value_at(const Heatmap& map, std::size_t row, std::size_t column) {
  if (row >= map.values.size() || column >= map.values[row].size()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return map.values[row][column];
}

std::string label_at(const std::vector<std::string>& labels, std::size_t i) {
  return i < labels.size() ? labels[i] : std::string();
}

// The smallest of 1, 2, 5, 10, 20, 50, ... that is at least `needed`.
std::size_t nice_stride(double needed) {
  std::size_t stride = 1;
  for (std::size_t decade = 1;; decade *= 10) {
    for (const std::size_t factor : {1U, 2U, 5U}) {
      stride = factor * decade;
      if (static_cast<double>(stride) >= needed) {
        return stride;
      }
    }
  }
}

double fraction_of(const ColourRange& range, double value) {
  if (range.hi <= range.lo) {
    return 0.5;
  }
  return std::clamp((value - range.lo) / (range.hi - range.lo), 0.0, 1.0);
}

bool has_missing(const Heatmap& map, const HeatmapLayout& layout) {
  for (std::size_t r = 0; r < layout.rows; ++r) {
    for (std::size_t c = 0; c < layout.columns; ++c) {
      if (!std::isfinite(value_at(map, r, c))) {
        return true;
      }
    }
  }
  return false;
}

// One cell, with its tooltip when there is one.
std::string cell_element(double x,
                         double y,
                         double w,
                         double h,
                         std::string_view fill,
                         std::string_view css_class,
                         std::string_view tooltip) {
  std::string out = fmt::format(
      "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"", css_class,
      format_coordinate(x), format_coordinate(y), format_coordinate(w), format_coordinate(h), fill);
  out += tooltip.empty() ? "/>\n" : fmt::format("><title>{}</title></rect>\n", tooltip);
  return out;
}

// A grey cell with a diagonal hatch line (no pattern, so no ids clash when several figures are
// inlined into one page).
std::string missing_cell(
    double x, double y, double w, double h, std::string_view css_class, std::string_view tooltip) {
  std::string out = cell_element(x, y, w, h, "#d9d9d9", css_class, tooltip);
  if (w >= 6.0 && h >= 6.0) {
    out += svg_line(x + 1.0, y + h - 1.0, x + w - 1.0, y + 1.0, "#9a9a9a");
  }
  return out;
}

std::string draw_cells(const Heatmap& map, const HeatmapLayout& layout, const ColourRange& range) {
  const bool tooltips = layout.rows * layout.columns <= kMaxTooltipCells;
  const std::string unit = map.value_unit.empty() ? "" : " " + map.value_unit;
  std::string out = "<g class=\"cells\">\n";
  for (std::size_t r = 0; r < layout.rows; ++r) {
    const double y = layout.top + layout.cell_height * static_cast<double>(r);
    for (std::size_t c = 0; c < layout.columns; ++c) {
      const double x = layout.left + layout.cell_width * static_cast<double>(c);
      const double v = value_at(map, r, c);
      const std::string tooltip =
          tooltips
              ? xml_escape(fmt::format(
                    "{}, {}: {}{}", label_at(map.row_labels, r), label_at(map.column_labels, c),
                    std::isfinite(v) ? format_number(v) : "no data", std::isfinite(v) ? unit : ""))
              : std::string();
      if (!std::isfinite(v)) {
        out += missing_cell(x, y, layout.cell_width, layout.cell_height, "cell no-data", tooltip);
        continue;
      }
      const double f = fraction_of(range, v);
      out += cell_element(x, y, layout.cell_width, layout.cell_height, sequential_colour(f), "cell",
                          tooltip);
      if (layout.values_shown) {
        out += svg_text(x + layout.cell_width / 2.0, y + layout.cell_height / 2.0 + 3.5,
                        format_number(v),
                        {.anchor = Anchor::kMiddle,
                         .size = kValueFont,
                         .fill = sequential_colour_is_dark(f) ? "#ffffff" : "#000000"});
      }
    }
  }
  out += "</g>\n";
  return out;
}

std::string draw_labels(const Heatmap& map, const HeatmapLayout& layout) {
  std::string out = "<g class=\"labels\">\n";
  for (std::size_t r = 0; r < layout.rows; r += layout.row_label_stride) {
    const double y = layout.top + layout.cell_height * (static_cast<double>(r) + 0.5) + 3.5;
    out += svg_text(layout.left - 4.0, y, label_at(map.row_labels, r),
                    {.anchor = Anchor::kEnd, .size = kLabelFont});
  }
  const double grid_bottom = layout.top + layout.cell_height * static_cast<double>(layout.rows);
  for (std::size_t c = 0; c < layout.columns; c += layout.column_label_stride) {
    const double x = layout.left + layout.cell_width * (static_cast<double>(c) + 0.5);
    out += svg_text(x, grid_bottom + 13.0, label_at(map.column_labels, c),
                    {.anchor = Anchor::kMiddle, .size = kLabelFont});
  }
  const double grid_right = layout.left + layout.cell_width * static_cast<double>(layout.columns);
  if (!map.column_title.empty()) {
    out += svg_text((layout.left + grid_right) / 2.0, grid_bottom + 34.0, map.column_title,
                    {.anchor = Anchor::kMiddle, .css_class = "axis-title"});
  }
  if (!map.row_title.empty()) {
    out += svg_text(16.0, layout.top + (grid_bottom - layout.top) / 2.0, map.row_title,
                    {.anchor = Anchor::kMiddle, .rotate = -90.0, .css_class = "axis-title"});
  }
  out += "</g>\n";
  return out;
}

double legend_height(const HeatmapLayout& layout) {
  return std::clamp(layout.cell_height * static_cast<double>(layout.rows), 120.0, 320.0);
}

// The legend bar: slices of the scale, top = high, with the ends and nice values between.
std::string draw_legend(const Heatmap& map,
                        const HeatmapLayout& layout,
                        const ColourRange& range,
                        bool missing) {
  const double x = layout.left + layout.cell_width * static_cast<double>(layout.columns) + 16.0;
  const double top = layout.top;
  const double height = legend_height(layout);
  std::string out = "<g class=\"legend\">\n";
  const double slice = height / kLegendSlices;
  for (int i = 0; i < kLegendSlices; ++i) {
    const double f = (static_cast<double>(i) + 0.5) / kLegendSlices;
    out +=
        svg_rect(x, top + height - slice * (i + 1), kLegendBar, slice + 0.05, sequential_colour(f));
  }
  out += svg_rect(x, top, kLegendBar, height, "none", "stroke=\"#555555\"");
  const AxisMap bar(AxisScale::kLinear, range.lo, range.hi > range.lo ? range.hi : range.lo + 1.0,
                    top + height, top);
  const auto label = [&](double value, double y) {
    out += svg_line(x + kLegendBar, y, x + kLegendBar + 3.0, y, "#555555");
    out += svg_text(x + kLegendBar + 5.0, y + 3.5, format_number(value), {.size = kLabelFont});
  };
  label(range.lo, top + height);
  if (range.hi > range.lo) {
    label(range.hi, top);
    for (const Tick& tick : linear_ticks(range.lo, range.hi).ticks) {
      const double y = bar.to_pixel(tick.value);
      if (y > top + 14.0 && y < top + height - 14.0) {
        label(tick.value, y);
      }
    }
  }
  const std::string title = axis_title(map.value_label, map.value_unit);
  if (!title.empty()) {
    out += svg_text(x + kLegendWidth - 8.0, top + height / 2.0, title,
                    {.anchor = Anchor::kMiddle, .rotate = -90.0, .css_class = "axis-title"});
  }
  if (missing) {
    out += missing_cell(x, top + height + 12.0, kLegendBar, kLegendBar, "no-data-swatch", "");
    out += svg_text(x + kLegendBar + 5.0, top + height + 23.0, "no data", {.size = kLabelFont});
  }
  out += "</g>\n";
  return out;
}

}  // namespace

ColourRange heatmap_range(const Heatmap& map) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const std::vector<double>& row : map.values) {
    for (const double v : row) {
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
  }
  if (lo > hi) {
    lo = 0.0;
    hi = 1.0;
  }
  ColourRange range{map.scale_min.value_or(lo), map.scale_max.value_or(hi)};
  if (range.hi < range.lo) {
    std::swap(range.lo, range.hi);
  }
  return range;
}

HeatmapLayout heatmap_layout(const Heatmap& map) {
  HeatmapLayout layout;
  layout.rows = std::max(map.values.size(), map.row_labels.size());
  layout.columns = map.column_labels.size();
  for (const std::vector<double>& row : map.values) {
    layout.columns = std::max(layout.columns, row.size());
  }
  double row_label_width = 0.0;
  for (const std::string& label : map.row_labels) {
    row_label_width = std::max(row_label_width, text_width(label, kLabelFont));
  }
  double column_label_width = 0.0;
  for (const std::string& label : map.column_labels) {
    column_label_width = std::max(column_label_width, text_width(label, kLabelFont));
  }
  layout.left =
      12.0 + (map.row_title.empty() ? 0.0 : 18.0) + std::min(row_label_width, 200.0) + 6.0;
  layout.top = map.title.empty() ? 16.0 : 44.0;
  const double grid_width = std::max(40.0, map.width - layout.left - 16.0 - kLegendWidth);
  const double rows = static_cast<double>(std::max<std::size_t>(layout.rows, 1));
  const double columns = static_cast<double>(std::max<std::size_t>(layout.columns, 1));
  layout.cell_width = grid_width / columns;
  layout.cell_height = std::clamp(kTargetGridHeight / rows, kMinCell, kMaxCell);
  layout.row_label_stride = nice_stride((kLabelFont + 2.0) / layout.cell_height);
  layout.column_label_stride = nice_stride((column_label_width + 6.0) / layout.cell_width);
  double value_width = 0.0;
  for (std::size_t r = 0; r < layout.rows; ++r) {
    for (std::size_t c = 0; c < layout.columns; ++c) {
      const double v = value_at(map, r, c);
      if (std::isfinite(v)) {
        value_width = std::max(value_width, text_width(format_number(v), kValueFont));
      }
    }
  }
  layout.values_shown = layout.cell_height >= 14.0 && layout.cell_width >= value_width + 4.0;
  const double grid_height = layout.cell_height * static_cast<double>(layout.rows);
  const double legend = legend_height(layout) + 32.0;  // the bar and the "no data" swatch
  layout.height = layout.top + std::max(grid_height + 44.0, legend) + 8.0;
  return layout;
}

std::string svg_heatmap(const Heatmap& map) {
  const HeatmapLayout layout = heatmap_layout(map);
  const ColourRange range = heatmap_range(map);
  std::string out = svg_begin(map.width, layout.height, map.title);
  out += draw_title(map.width, map.title);
  out += draw_cells(map, layout, range);
  out += draw_labels(map, layout);
  out += draw_legend(map, layout, range, has_missing(map, layout));
  out += svg_end();
  return out;
}

}  // namespace railsim::tools::report
