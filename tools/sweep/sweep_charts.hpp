// File: tools/sweep/sweep_charts.hpp
// The line charts of a sweep's report (docs/sweeps.md, "Reports"): which ones its columns allow
// (busbw against message size, step time against a fault's severity, a metric against a
// numeric parameter) and how its rows become their series.
#pragma once

#include "tools/report/axis.hpp"
#include "tools/report/line_chart.hpp"
#include "tools/sweep/sweep_results.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace railsim::tools::sweep {

// A line chart has at most this many series; more combinations of parameters are split into
// one chart per value of the first varying parameter, and what is still too many is cut (the
// caption says so), since a legend of 50 colours reads as noise.
constexpr std::size_t kMaxSeries = 12;

// At most this many split charts of one kind.
constexpr std::size_t kMaxCharts = 12;

// A chart of the page before it is drawn, with its file stem and caption.
struct ReportChart {
  std::string name;
  report::LineChart chart;
  std::string caption;
};

// The line charts, in page order: busbw against size when rows have size_bytes and busbw_GBps
// over at least two sizes; step_time_ms against a numeric parameter named rate_scale (or whose
// name contains "scale" or "severity"); otherwise the first of busbw_GBps, step_time_ms or any
// numeric metric against the first numeric parameter that varies (each point's last row, its
// largest size). Series are the combinations of the other varying parameters.
[[nodiscard]] std::vector<ReportChart> sweep_line_charts(const SweepResults& results);

// The axis of a metric: busbw in GB/s and step time in ms from zero; any other as it is named.
report::AxisOptions metric_axis(const std::string& metric);

}  // namespace railsim::tools::sweep
