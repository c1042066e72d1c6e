// File: tools/sweep/sweep_report.hpp
// The page `railsim sweep --report DIR` writes (docs/sweeps.md, "Reports"): from a sweep's
// results, the figures its columns allow (busbw against message size, step time against fault
// severity, a metric against a numeric parameter, the utilisation of the fabric's links) and
// tables of every row. A pure function of SweepResults, so equal results give equal pages.
#pragma once

#include "tools/report/heatmap.hpp"
#include "tools/report/line_chart.hpp"
#include "tools/report/report_page.hpp"
#include "tools/sweep/sweep_results.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace railsim::tools::sweep {

// A line chart has at most this many series; more combinations of parameters are split into
// one chart per value of the first varying parameter, and what is still too many is cut (the
// caption says so), since a legend of 50 colours reads as noise.
constexpr std::size_t kMaxSeries = 12;

// At most this many split charts of one kind.
constexpr std::size_t kMaxCharts = 12;

// The heatmap shows at most this many links, the busiest (by their highest utilisation).
constexpr std::size_t kMaxHeatmapLinks = 256;

// The table of every row stops after this many rows (results.csv has them all).
constexpr std::size_t kMaxTableRows = 5000;

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

struct LinkHeatmap {
  report::Heatmap map;
  std::string caption;
};

// Rows: the links that carried traffic at any point (the kMaxHeatmapLinks busiest, in link
// order); columns: the points that measured links; values: utilisation in %. Nothing when no
// point measured links (collective points; a merged sweep).
[[nodiscard]] std::optional<LinkHeatmap> link_heatmap(const SweepResults& results);

// The whole page, titled with the sweep's name. An InputError when a metric is named like a
// parameter (as results_csv).
[[nodiscard]] report::Report sweep_report(const SweepResults& results);

}  // namespace railsim::tools::sweep
