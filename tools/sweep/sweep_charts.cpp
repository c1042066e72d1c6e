// File: tools/sweep/sweep_charts.cpp
// Rows come in point order and every grouping keeps first-seen order (results_view.hpp), so
// the charts are deterministic without any sorting by value.
#include "tools/sweep/sweep_charts.hpp"

#include "tools/sweep/results_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

namespace railsim::tools::sweep {
namespace {

// What one kind of chart plots; x and y read a row.
struct ChartSpec {
  std::string name;   // file stem
  std::string title;  // "busbw vs message size"
  std::string what;   // caption's start: "Bus bandwidth of each message size"
  report::AxisOptions x;
  report::AxisOptions y;
  std::string x_metric;  // empty: the parameter x_parameter
  std::size_t x_parameter = 0;
  std::string y_metric;
};

std::optional<double> x_of(const ResultsView& view, const ChartSpec& spec, std::size_t row) {
  if (!spec.x_metric.empty()) {
    return metric_number(view.results->rows[row].metrics, spec.x_metric);
  }
  return parse_number(view.texts[row][spec.x_parameter]);
}

// One chart of `rows`, a series per combination of `series_params` (at most kMaxSeries).
ReportChart make_chart(const ResultsView& view,
                       const ChartSpec& spec,
                       const std::vector<std::size_t>& rows,
                       const std::vector<std::size_t>& series_params,
                       const std::string& subset) {
  ReportChart out;
  out.name = subset.empty() ? spec.name : spec.name + " " + subset;
  out.chart.title = subset.empty() ? spec.title : spec.title + ", " + subset;
  out.chart.x = spec.x;
  out.chart.y = spec.y;
  const std::vector<RowGroup> groups = group_rows(view, rows, series_params);
  const std::size_t shown = std::min(groups.size(), kMaxSeries);
  out.chart.series.reserve(shown);
  std::size_t markers = 0;
  for (std::size_t g = 0; g < shown; ++g) {
    report::Series series;
    series.name = groups[g].label;
    series.points.reserve(groups[g].rows.size());
    for (const std::size_t row : groups[g].rows) {
      const std::optional<double> x = x_of(view, spec, row);
      const std::optional<double> y = metric_number(view.results->rows[row].metrics, spec.y_metric);
      if (x && y) {
        series.points.push_back({*x, *y});
      }
    }
    markers += series.points.size();
    out.chart.series.push_back(std::move(series));
  }
  out.caption = spec.what;
  if (series_params.size() == 1) {
    out.caption += ", one line per value of " + view.parameters[series_params[0]].name;
  } else if (!series_params.empty()) {
    out.caption += ", one line per combination of ";
    for (std::size_t i = 0; i < series_params.size(); ++i) {
      out.caption += i == 0 ? "" : (i + 1 == series_params.size() ? " and " : ", ");
      out.caption += view.parameters[series_params[i]].name;
    }
  }
  out.caption += fmt::format(" ({} points plotted).", markers);
  if (shown < groups.size()) {
    out.caption += fmt::format(
        " Only the first {} of {} combinations are drawn; the tables below "
        "have them all.",
        shown, groups.size());
  }
  return out;
}

// The charts of `spec` over `rows`: one, or one per value of the first of `series_params` when
// there are more combinations than one chart can draw.
std::vector<ReportChart> make_charts(const ResultsView& view,
                                     const ChartSpec& spec,
                                     const std::vector<std::size_t>& rows,
                                     const std::vector<std::size_t>& series_params) {
  const std::size_t combinations = group_rows(view, rows, series_params).size();
  if (combinations <= kMaxSeries || series_params.size() < 2) {
    return {make_chart(view, spec, rows, series_params, "")};
  }
  const std::size_t first = series_params.front();
  const std::vector<std::size_t> rest(series_params.begin() + 1, series_params.end());
  const std::vector<RowGroup> subsets = group_rows(view, rows, {first});
  std::vector<ReportChart> charts;
  charts.reserve(std::min(subsets.size(), kMaxCharts));
  for (std::size_t s = 0; s < subsets.size() && s < kMaxCharts; ++s) {
    charts.push_back(make_chart(view, spec, subsets[s].rows, rest, subsets[s].label));
  }
  if (subsets.size() > kMaxCharts) {
    charts.back().caption += fmt::format(
        " Charts for only the first {} of {} values of {} are "
        "drawn.",
        kMaxCharts, subsets.size(), view.parameters[first].name);
  }
  return charts;
}

// Log2 when the parameter's values are positive and span at least 8x (2 to 128 nodes).
report::AxisOptions parameter_axis(const ParameterColumn& parameter) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0.0;
  for (const std::string& value : parameter.values) {
    const double v = parse_number(value).value_or(0.0);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const bool log = lo > 0.0 && hi / lo >= 8.0;
  return {parameter.name, "", log ? report::AxisScale::kLog2 : report::AxisScale::kLinear,
          report::TickFormat::kNumber, false};
}

}  // namespace

report::AxisOptions metric_axis(const std::string& metric) {
  if (metric == "busbw_GBps") {
    return {"busbw", "GB/s", report::AxisScale::kLinear, report::TickFormat::kNumber, true};
  }
  if (metric == "step_time_ms") {
    return {"step time", "ms", report::AxisScale::kLinear, report::TickFormat::kNumber, true};
  }
  return {metric, "", report::AxisScale::kLinear, report::TickFormat::kNumber, false};
}

std::vector<ReportChart> sweep_line_charts(const SweepResults& results) {
  const ResultsView view = make_view(results);
  std::vector<ReportChart> charts;
  if (has_metric(view, "size_bytes") && has_metric(view, "busbw_GBps") &&
      distinct_values(view, "size_bytes") >= 2) {
    ChartSpec spec;
    spec.name = "busbw vs size";
    spec.title = "busbw vs message size";
    spec.what = "Bus bandwidth (nccl-tests' busbw) of each message size";
    spec.x = {"message size", "B", report::AxisScale::kLog2, report::TickFormat::kBytes, false};
    spec.y = metric_axis("busbw_GBps");
    spec.x_metric = "size_bytes";
    spec.y_metric = "busbw_GBps";
    const std::vector<ReportChart> more = make_charts(view, spec, all_rows(view), view.varying);
    charts.insert(charts.end(), more.begin(), more.end());
  }
  const std::optional<std::size_t> severity = severity_parameter(view);
  if (severity && has_metric(view, "step_time_ms")) {
    const ParameterColumn& parameter = view.parameters[*severity];
    ChartSpec spec;
    spec.name = "step time vs " + parameter.name;
    spec.title = "step time vs " + parameter.name;
    spec.what = "Training step time against the fault's severity (" + parameter.name + ")";
    spec.x = {parameter.name, "", report::AxisScale::kLinear, report::TickFormat::kNumber, false};
    spec.y = metric_axis("step_time_ms");
    spec.x_parameter = *severity;
    spec.y_metric = "step_time_ms";
    const std::vector<ReportChart> more =
        make_charts(view, spec, view.last_rows, without(view.varying, *severity));
    charts.insert(charts.end(), more.begin(), more.end());
  }
  if (!charts.empty()) {
    return charts;
  }
  const std::optional<std::string> metric = headline_metric(view);
  const auto numeric = std::find_if(view.varying.begin(), view.varying.end(),
                                    [&](std::size_t p) { return view.parameters[p].numeric; });
  if (!metric || numeric == view.varying.end()) {
    return charts;
  }
  const ParameterColumn& parameter = view.parameters[*numeric];
  ChartSpec spec;
  spec.y = metric_axis(*metric);
  spec.name = *metric + " vs " + parameter.name;
  spec.title = spec.y.label + " vs " + parameter.name;
  spec.what = *metric + " against " + parameter.name + " (each point's last row: its largest size)";
  spec.x = parameter_axis(parameter);
  spec.x_parameter = *numeric;
  spec.y_metric = *metric;
  return make_charts(view, spec, view.last_rows, without(view.varying, *numeric));
}

}  // namespace railsim::tools::sweep
