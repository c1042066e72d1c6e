// File: tools/report/timeline.hpp
// svg_timeline: what each of several rows (a training step's ranks) did when, as bars on a time
// axis, a colour per category (compute, each collective), bars on a highlighted chain (the
// critical path) outlined; the gaps between bars are waits. A standalone SVG document.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace railsim::tools::report {

struct TimelineBar {
  std::size_t row = 0;
  double start = 0.0;  // in the axis' unit
  double end = 0.0;
  std::size_t category = 0;  // index into Timeline::categories: its colour and legend entry
  bool highlighted = false;  // outlined, and named in the legend by `highlight_label`
  std::string tooltip;
};

struct Timeline {
  std::string title;
  std::vector<std::string> rows;  // labels, top to bottom
  std::vector<std::string> categories;
  std::vector<TimelineBar> bars;
  std::string axis_label;  // "time"
  std::string axis_unit;   // "ms"
  std::string highlight_label = "critical path";
  double width = 900.0;  // px; the height follows from the rows
};

// Each bar is a <rect class="bar"> (class "bar highlighted" when so) with a <title> tooltip, in
// the order given; each legend entry a <g class="legend-entry">. Deterministic for equal input.
[[nodiscard]] std::string svg_timeline(const Timeline& timeline);

}  // namespace railsim::tools::report
