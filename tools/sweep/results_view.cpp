// File: tools/sweep/results_view.cpp
#include "tools/sweep/results_view.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <utility>
#include <variant>

namespace railsim::tools::sweep {
namespace {

bool names_severity(const std::string& name) {
  return name == "rate_scale" || name.find("scale") != std::string::npos ||
         name.find("severity") != std::string::npos;
}

}  // namespace

std::optional<double> parse_number(std::string_view text) {
  double value = 0.0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr != end || text.empty()) {
    return std::nullopt;
  }
  return value;
}

ResultsView make_view(const SweepResults& results) {
  ResultsView view;
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
      ParameterColumn& parameter = view.parameters[p];
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

bool has_metric(const ResultsView& view, std::string_view name) {
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

std::string combination(const ResultsView& view,
                        std::size_t row,
                        const std::vector<std::size_t>& params) {
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

// `rows` grouped by their values of `params`, groups in first-seen order.
std::vector<RowGroup> group_rows(const ResultsView& view,
                                 const std::vector<std::size_t>& rows,
                                 const std::vector<std::size_t>& params) {
  std::vector<RowGroup> groups;
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

std::vector<std::size_t> all_rows(const ResultsView& view) {
  std::vector<std::size_t> rows(view.texts.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    rows[r] = r;
  }
  return rows;
}

// Distinct values of `metric` over the rows.
std::size_t distinct_values(const ResultsView& view, std::string_view metric) {
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
std::optional<std::string> headline_metric(const ResultsView& view) {
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

std::optional<std::size_t> severity_parameter(const ResultsView& view) {
  for (const std::size_t p : view.varying) {
    if (view.parameters[p].numeric && names_severity(view.parameters[p].name)) {
      return p;
    }
  }
  return std::nullopt;
}

}  // namespace railsim::tools::sweep
