// File: tools/sweep/sweep_report.cpp
// The page of a sweep: its summary, its figures (sweep_charts.hpp, link_heatmap.hpp, or one bar
// per point when no parameter is a number) and the tables of its rows.
#include "tools/sweep/sweep_report.hpp"

#include "tools/report/bar_chart.hpp"
#include "tools/report/html_table.hpp"
#include "tools/sweep/results_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <variant>

namespace railsim::tools::sweep {
namespace {

constexpr std::size_t kMaxListedValues = 10;  // values of a parameter named in the summary

std::string format_cell(const MetricValue& value) {
  if (const auto* integer = std::get_if<std::int64_t>(&value)) {
    return std::to_string(*integer);
  }
  if (const auto* real = std::get_if<double>(&value)) {
    return std::isfinite(*real) ? fmt::format("{:.4g}", *real) : std::string("n/a");
  }
  return std::get<std::string>(value);
}

std::string format_value(double value) {
  return std::isfinite(value) ? fmt::format("{:.4g}", value) : std::string("n/a");
}

std::string summary(const ResultsView& view) {
  const SweepResults& results = *view.results;
  std::string out = fmt::format("{} points, {} rows.", results.points, results.rows.size());
  for (std::size_t p = 0; p < view.parameters.size(); ++p) {
    const ParameterColumn& parameter = view.parameters[p];
    out += p == 0 ? " Swept: " : "; ";
    out += parameter.name;
    out += " (";
    for (std::size_t v = 0; v < parameter.values.size() && v < kMaxListedValues; ++v) {
      out += v == 0 ? "" : ", ";
      out += parameter.values[v];
    }
    if (parameter.values.size() > kMaxListedValues) {
      out += fmt::format(", ... {} values", parameter.values.size());
    }
    out += ")";
  }
  out += ". Each row gives ";
  for (std::size_t m = 0; m < view.metrics.size(); ++m) {
    out += m == 0 ? "" : ", ";
    out += view.metrics[m];
  }
  out += ".";
  return out;
}

report::Table rows_table(const ResultsView& view) {
  const SweepResults& results = *view.results;
  report::Table table;
  table.header.emplace_back("point");
  table.header.insert(table.header.end(), results.parameters.begin(), results.parameters.end());
  table.header.insert(table.header.end(), view.metrics.begin(), view.metrics.end());
  const std::size_t shown = std::min(results.rows.size(), kMaxTableRows);
  table.caption = shown < results.rows.size()
                      ? fmt::format("The first {} of {} rows (results.csv has them all).", shown,
                                    results.rows.size())
                      : fmt::format("Every row of the sweep ({}).", results.rows.size());
  table.rows.reserve(shown);
  for (std::size_t r = 0; r < shown; ++r) {
    const ResultRow& row = results.rows[r];
    std::vector<std::string> cells;
    cells.reserve(table.header.size());
    cells.push_back(std::to_string(row.point));
    cells.insert(cells.end(), view.texts[r].begin(), view.texts[r].end());
    for (const std::string& name : view.metrics) {
      const Metric* metric = find_metric(row.metrics, name);
      cells.push_back(metric == nullptr ? std::string() : format_cell(metric->value));
    }
    table.rows.push_back(std::move(cells));
  }
  return table;
}

// Per point, busbw at its largest size and its ratio to the first point's.
report::Table largest_size_table(const ResultsView& view) {
  const SweepResults& results = *view.results;
  report::Table table;
  table.header.emplace_back("point");
  for (const std::size_t p : view.varying) {
    table.header.push_back(view.parameters[p].name);
  }
  table.header.insert(table.header.end(), {"size_bytes", "busbw_GBps", "ratio to first"});
  std::optional<double> first;
  std::size_t begin = 0;
  for (const std::size_t last : view.last_rows) {
    std::size_t best = last;
    double best_size = -1.0;
    for (std::size_t r = begin; r <= last; ++r) {
      const double size = metric_number(results.rows[r].metrics, "size_bytes").value_or(-1.0);
      if (size > best_size) {
        best_size = size;
        best = r;
      }
    }
    begin = last + 1;
    const std::optional<double> busbw = metric_number(results.rows[best].metrics, "busbw_GBps");
    if (!busbw || best_size < 0.0) {
      continue;
    }
    if (!first) {
      first = *busbw;
    }
    std::vector<std::string> cells;
    cells.reserve(table.header.size());
    cells.push_back(std::to_string(results.rows[best].point));
    for (const std::size_t p : view.varying) {
      cells.push_back(view.texts[best][p]);
    }
    cells.push_back(fmt::format("{:.0f}", best_size));
    cells.push_back(format_value(*busbw));
    cells.push_back(format_value(*busbw / *first));
    table.rows.push_back(std::move(cells));
    if (table.rows.size() == kMaxTableRows) {
      break;
    }
  }
  table.caption =
      "Bus bandwidth at each point's largest message size, and its ratio to the "
      "first point's.";
  return table;
}

// One bar per point (its last row) when no parameter is a number to plot against.
report::BarChart point_bars(const ResultsView& view, const std::string& metric) {
  report::BarChart chart;
  const report::AxisOptions axis = metric_axis(metric);
  chart.title = axis.label + " per point";
  chart.category_title = "point";
  chart.value_label = axis.label;
  chart.value_unit = axis.unit;
  chart.bars.reserve(view.last_rows.size());
  for (const std::size_t row : view.last_rows) {
    chart.bars.push_back({combination(view, row, view.varying),
                          metric_number(view.results->rows[row].metrics, metric)
                              .value_or(std::numeric_limits<double>::quiet_NaN())});
  }
  return chart;
}

}  // namespace

report::Report sweep_report(const SweepResults& results) {
  const ResultsView view = make_view(results);
  report::Report page(results.sweep);
  page.add_paragraph(summary(view));
  const std::vector<ReportChart> charts = sweep_line_charts(results);
  for (const ReportChart& chart : charts) {
    page.add_figure(chart.name, report::svg_line_chart(chart.chart), chart.caption);
  }
  const std::optional<std::string> metric = headline_metric(view);
  if (charts.empty() && metric && !view.last_rows.empty()) {
    page.add_figure(*metric + " per point", report::svg_bar_chart(point_bars(view, *metric)),
                    "Each point's " + *metric + " (its last row): no numeric parameter varies.");
  }
  if (const std::optional<LinkHeatmap> heatmap = link_heatmap(results)) {
    page.add_figure("link utilisation", report::svg_heatmap(heatmap->map), heatmap->caption);
    page.add_table(heatmap->busiest);
  } else if (has_metric(view, "step_time_ms")) {
    page.add_paragraph(
        "No link utilisation heatmap: per-link utilisation is measured while the sweep runs and "
        "is not kept in results.json, so merged results have none.");
  }
  page.add_heading("Results");
  page.add_table(rows_table(view));
  if (has_metric(view, "size_bytes") && has_metric(view, "busbw_GBps")) {
    page.add_heading("Bus bandwidth at the largest size");
    page.add_table(largest_size_table(view));
  }
  return page;
}

}  // namespace railsim::tools::sweep
