// File: tools/report/bar_chart.hpp
// svg_bar_chart: one labelled bar per category (per-node busbw, per-link load) on a linear axis
// from zero, with an optional dashed reference line (the expected value) to compare against.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace railsim::tools::report {

struct Bar {
  std::string label;
  double value = 0.0;  // NaN or infinite: no bar, the label reads "n/a"
};

struct BarChart {
  std::string title;
  std::string category_title;  // under the bar labels: "node"
  std::string value_label;     // "busbw"
  std::string value_unit;      // "GB/s"
  std::vector<Bar> bars;       // drawn in this order
  std::optional<double> reference;
  std::string reference_label;  // beside the reference line: "expected"
  double width = 720.0;         // px
  double height = 360.0;        // px
};

// The SVG document. Each bar is a <rect class="bar"> with a <title> tooltip; the reference line,
// when given, is a <line class="reference">. Labels are thinned when bars are narrow.
[[nodiscard]] std::string svg_bar_chart(const BarChart& chart);

}  // namespace railsim::tools::report
