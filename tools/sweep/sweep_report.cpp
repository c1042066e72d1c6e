// File: tools/sweep/sweep_report.cpp
// Which figures and tables a sweep's columns allow, and how its rows become their series. Rows
// come in point order, so every grouping below keeps first-seen order and the page is
// deterministic without any sorting by value.
#include "tools/sweep/sweep_report.hpp"

#include "tools/report/axis.hpp"
#include "tools/report/bar_chart.hpp"
#include "tools/report/html_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string_view>
#include <utility>
#include <variant>

namespace railsim::tools::sweep {
namespace {

constexpr std::size_t kMaxListedValues = 10;  // values of a parameter named in the summary

// A parameter as the rows show it.
struct Parameter {
  std::string name;
  std::vector<std::string> values;  // distinct cell texts, in first-seen order
  bool numeric = true;              // every value a JSON number
};

// The results, indexed for grouping.
struct View {
  const SweepResults* results = nullptr;
  std::vector<std::string> metrics;
  std::vector<Parameter> parameters;
  std::vector<std::vector<std::string>> texts;  // per row, per parameter: cell_text
  std::vector<std::size_t> varying;             // parameters with more than one value
  std::vector<std::size_t> last_rows;           // per point present, its last row
};

std::optional<double> parse_number(std::string_view text) {
  double value = 0.0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr != end || text.empty()) {
    return std::nullopt;
  }
  return value;
}

View make_view(const SweepResults& results) {
  View view;
  view.results = &results;
  view.metrics = metric_names(results);
  view.parameters.resize(results.parameters.size());
  for (std::size_t p = 0; p < results.parameters.size(); ++p) {
    view.parameters[p].name = results.parameters[p];
  }
  view.texts.reserve(results.rows.size());
  for (std::size_t r = 0; r < results.rows.size(); ++r) {
    const ResultRow& row = results.rows[r];
    std::vector<std::string> texts;
    texts.reserve(row.cells.size());
    for (std::size_t p = 0; p < row.cells.size() && p < view.parameters.size(); ++p) {
      Parameter& parameter = view.parameters[p];
      texts.push_back(cell_text(row.cells[p]));
      if (std::find(parameter.values.begin(), parameter.values.end(), texts.back()) ==
          parameter.values.end()) {
        parameter.values.push_back(texts.back());
        // A labelled or string value is a JSON string, so its cell starts with a quote.
        parameter.numeric = parameter.numeric && parse_number(row.cells[p]).has_value();
      }
    }
    view.texts.push_back(std::move(texts));
    if (r + 1 == results.rows.size() || results.rows[r + 1].point != row.point) {
      view.last_rows.push_back(r);
    }
  }
  for (std::size_t p = 0; p < view.parameters.size(); ++p) {
    if (view.parameters[p].values.size() > 1) {
      view.varying.push_back(p);
    }
  }
  return view;
}

bool has_metric(const View& view, std::string_view name) {
  return std::find(view.metrics.begin(), view.metrics.end(), name) != view.metrics.end();
}

const Metric* find_metric(const PointRow& row, std::string_view name) {
  for (const Metric& metric : row) {
    if (metric.name == name) {
      return &metric;
    }
  }
  return nullptr;
}

std::optional<double> metric_number(const PointRow& row, std::string_view name) {
  const Metric* metric = find_metric(row, name);
  if (metric == nullptr) {
    return std::nullopt;
  }
  if (const auto* integer = std::get_if<std::int64_t>(&metric->value)) {
    return static_cast<double>(*integer);
  }
  if (const auto* real = std::get_if<double>(&metric->value)) {
    return *real;
  }
  return std::nullopt;
}

// "nodes=2, rails=aligned" for the row's values of `parameters`; "all points" for none.
std::string combination(const View& view, std::size_t row, const std::vector<std::size_t>& params) {
  std::string out;
  for (const std::size_t p : params) {
    if (!out.empty()) {
      out += ", ";
    }
    out += view.parameters[p].name;
    out += '=';
    out += view.texts[row][p];
  }
  return out.empty() ? std::string("all points") : out;
}

struct Group {
  std::string label;
  std::vector<std::size_t> rows;
};

// `rows` grouped by their values of `params`, groups in first-seen order.
std::vector<Group> group_rows(const View& view,
                              const std::vector<std::size_t>& rows,
                              const std::vector<std::size_t>& params) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  for (const std::size_t row : rows) {
    std::string label = combination(view, row, params);
    const auto [it, added] = index.emplace(label, groups.size());
    if (added) {
      groups.push_back({std::move(label), {}});
    }
    groups[it->second].rows.push_back(row);
  }
  return groups;
}

std::vector<std::size_t> without(std::vector<std::size_t> params, std::size_t p) {
  params.erase(std::remove(params.begin(), params.end(), p), params.end());
  return params;
}

std::vector<std::size_t> all_rows(const View& view) {
  std::vector<std::size_t> rows(view.texts.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    rows[r] = r;
  }
  return rows;
}

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

std::optional<double> x_of(const View& view, const ChartSpec& spec, std::size_t row) {
  if (!spec.x_metric.empty()) {
    return metric_number(view.results->rows[row].metrics, spec.x_metric);
  }
  return parse_number(view.texts[row][spec.x_parameter]);
}

// One chart of `rows`, a series per combination of `series_params` (at most kMaxSeries).
ReportChart make_chart(const View& view,
                       const ChartSpec& spec,
                       const std::vector<std::size_t>& rows,
                       const std::vector<std::size_t>& series_params,
                       const std::string& subset) {
  ReportChart out;
  out.name = subset.empty() ? spec.name : spec.name + " " + subset;
  out.chart.title = subset.empty() ? spec.title : spec.title + ", " + subset;
  out.chart.x = spec.x;
  out.chart.y = spec.y;
  const std::vector<Group> groups = group_rows(view, rows, series_params);
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
std::vector<ReportChart> make_charts(const View& view,
                                     const ChartSpec& spec,
                                     const std::vector<std::size_t>& rows,
                                     const std::vector<std::size_t>& series_params) {
  const std::size_t combinations = group_rows(view, rows, series_params).size();
  if (combinations <= kMaxSeries || series_params.size() < 2) {
    return {make_chart(view, spec, rows, series_params, "")};
  }
  const std::size_t first = series_params.front();
  const std::vector<std::size_t> rest(series_params.begin() + 1, series_params.end());
  const std::vector<Group> subsets = group_rows(view, rows, {first});
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

bool names_severity(const std::string& name) {
  return name == "rate_scale" || name.find("scale") != std::string::npos ||
         name.find("severity") != std::string::npos;
}

// Distinct values of `metric` over the rows.
std::size_t distinct_values(const View& view, std::string_view metric) {
  std::vector<double> seen;
  for (const ResultRow& row : view.results->rows) {
    const std::optional<double> value = metric_number(row.metrics, metric);
    if (value && std::find(seen.begin(), seen.end(), *value) == seen.end()) {
      seen.push_back(*value);
    }
  }
  return seen.size();
}

// The metric a chart against a parameter shows: busbw, else step time, else the first number.
std::optional<std::string> headline_metric(const View& view) {
  for (const char* name : {"busbw_GBps", "step_time_ms"}) {
    if (has_metric(view, name)) {
      return std::string(name);
    }
  }
  for (const std::string& name : view.metrics) {
    if (!view.results->rows.empty() &&
        metric_number(view.results->rows.front().metrics, name).has_value()) {
      return name;
    }
  }
  return std::nullopt;
}

report::AxisOptions metric_axis(const std::string& metric) {
  if (metric == "busbw_GBps") {
    return {"busbw", "GB/s", report::AxisScale::kLinear, report::TickFormat::kNumber, true};
  }
  if (metric == "step_time_ms") {
    return {"step time", "ms", report::AxisScale::kLinear, report::TickFormat::kNumber, true};
  }
  return {metric, "", report::AxisScale::kLinear, report::TickFormat::kNumber, false};
}

// Log2 when the parameter's values are positive and span at least 8x (2 to 128 nodes).
report::AxisOptions parameter_axis(const Parameter& parameter) {
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

std::optional<std::size_t> severity_parameter(const View& view) {
  for (const std::size_t p : view.varying) {
    if (view.parameters[p].numeric && names_severity(view.parameters[p].name)) {
      return p;
    }
  }
  return std::nullopt;
}

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

std::string summary(const View& view) {
  const SweepResults& results = *view.results;
  std::string out = fmt::format("{} points, {} rows.", results.points, results.rows.size());
  for (std::size_t p = 0; p < view.parameters.size(); ++p) {
    const Parameter& parameter = view.parameters[p];
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

report::Table rows_table(const View& view) {
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
report::Table largest_size_table(const View& view) {
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
report::BarChart point_bars(const View& view, const std::string& metric) {
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

std::vector<ReportChart> sweep_line_charts(const SweepResults& results) {
  const View view = make_view(results);
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
    const Parameter& parameter = view.parameters[*severity];
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
  const Parameter& parameter = view.parameters[*numeric];
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

std::optional<LinkHeatmap> link_heatmap(const SweepResults& results) {
  if (results.links.empty()) {
    return std::nullopt;
  }
  const View view = make_view(results);
  // Link names in first-seen order, each with its highest utilisation.
  std::vector<std::string> names;
  std::vector<double> peak;
  std::map<std::string, std::size_t> index;
  for (const PointLinks& point : results.links) {
    for (const auto& [name, utilisation] : point.links) {
      const auto [it, added] = index.emplace(name, names.size());
      if (added) {
        names.push_back(name);
        peak.push_back(0.0);
      }
      if (std::isfinite(utilisation)) {
        peak[it->second] = std::max(peak[it->second], utilisation);
      }
    }
  }
  std::vector<std::size_t> kept(names.size());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    kept[i] = i;
  }
  if (kept.size() > kMaxHeatmapLinks) {
    // The busiest, ties to the earlier link; then back to link order, which groups a node's
    // ports and a leaf's uplinks together.
    std::stable_sort(kept.begin(), kept.end(),
                     [&](std::size_t a, std::size_t b) { return peak[a] > peak[b]; });
    kept.resize(kMaxHeatmapLinks);
    std::sort(kept.begin(), kept.end());
  }
  std::map<std::size_t, std::size_t> first_row;  // point -> its first row
  for (std::size_t r = results.rows.size(); r-- > 0;) {
    first_row[results.rows[r].point] = r;
  }
  LinkHeatmap out;
  report::Heatmap& map = out.map;
  map.title = "fabric link utilisation per point";
  map.row_title = "link";
  map.value_label = "utilisation";
  map.value_unit = "%";
  map.scale_min = 0.0;
  for (const std::size_t p : view.varying) {
    map.column_title += map.column_title.empty() ? "" : " / ";
    map.column_title += view.parameters[p].name;
  }
  if (map.column_title.empty()) {
    map.column_title = "point";
  }
  map.row_labels.reserve(kept.size());
  for (const std::size_t i : kept) {
    map.row_labels.push_back(names[i]);
  }
  map.column_labels.reserve(results.links.size());
  for (const PointLinks& point : results.links) {
    const auto row = first_row.find(point.point);
    std::string label;
    if (row != first_row.end()) {
      for (const std::size_t p : view.varying) {
        label += label.empty() ? "" : "/";
        label += view.texts[row->second][p];
      }
    }
    map.column_labels.push_back(label.empty() ? fmt::format("point {}", point.point) : label);
  }
  map.values.assign(kept.size(), std::vector<double>(results.links.size(), 0.0));
  for (std::size_t c = 0; c < results.links.size(); ++c) {
    for (const auto& [name, utilisation] : results.links[c].links) {
      const std::size_t i = index.at(name);
      const auto at = std::lower_bound(kept.begin(), kept.end(), i);
      if (at != kept.end() && *at == i) {
        map.values[static_cast<std::size_t>(at - kept.begin())][c] = utilisation * 100.0;
      }
    }
  }
  out.caption =
      "Utilisation of each fabric link (NIC ports and switch-to-switch cables) that "
      "carried traffic: bytes / (capacity x step time), per point; 0 where a link "
      "carried nothing at that point.";
  if (kept.size() < names.size()) {
    out.caption += fmt::format(
        " Only the {} busiest of {} links are shown (by their highest "
        "utilisation at any point).",
        kept.size(), names.size());
  }
  return out;
}

report::Report sweep_report(const SweepResults& results) {
  const View view = make_view(results);
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
