// File: tools/sweep/results_view.hpp
// ResultsView: a sweep's results indexed for the report, by parameter (each one's distinct
// values, first seen first) and by metric, and the groupings charts and tables make of its
// rows. Rows come in point order, so every grouping keeps first-seen order and the page is
// deterministic without any sorting by value.
#pragma once

#include "tools/sweep/sweep_results.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::tools::sweep {

// A parameter as the rows show it.
struct ParameterColumn {
  std::string name;
  std::vector<std::string> values;  // distinct cell texts, in first-seen order
  bool numeric = true;              // every value a JSON number
};

// The results, indexed for grouping. Refers to the results it was made from.
struct ResultsView {
  const SweepResults* results = nullptr;
  std::vector<std::string> metrics;
  std::vector<ParameterColumn> parameters;
  std::vector<std::vector<std::string>> texts;  // per row, per parameter: cell_text
  std::vector<std::size_t> varying;             // parameters with more than one value
  std::vector<std::size_t> last_rows;           // per point present, its last row
};

[[nodiscard]] ResultsView make_view(const SweepResults& results);

// The whole of `text` as a number, or nothing.
std::optional<double> parse_number(std::string_view text);

bool has_metric(const ResultsView& view, std::string_view name);

// The row's metric called `name`, or nullptr.
const Metric* find_metric(const PointRow& row, std::string_view name);

// The row's metric called `name` when it is a number.
std::optional<double> metric_number(const PointRow& row, std::string_view name);

// "nodes=2, rails=aligned" for the row's values of `parameters`; "all points" for none.
std::string combination(const ResultsView& view,
                        std::size_t row,
                        const std::vector<std::size_t>& params);

struct RowGroup {
  std::string label;
  std::vector<std::size_t> rows;
};

// `rows` grouped by their values of `params`, groups in first-seen order.
std::vector<RowGroup> group_rows(const ResultsView& view,
                                 const std::vector<std::size_t>& rows,
                                 const std::vector<std::size_t>& params);

// `params` without `p`.
std::vector<std::size_t> without(std::vector<std::size_t> params, std::size_t p);

// 0, 1, ... for every row.
std::vector<std::size_t> all_rows(const ResultsView& view);

// Distinct values of `metric` over the rows.
std::size_t distinct_values(const ResultsView& view, std::string_view metric);

// The metric a chart against a parameter shows: busbw, else step time, else the first number.
std::optional<std::string> headline_metric(const ResultsView& view);

// The first varying numeric parameter named like a fault's severity (rate_scale, *scale*,
// *severity*).
std::optional<std::size_t> severity_parameter(const ResultsView& view);

}  // namespace railsim::tools::sweep
