// File: tools/sweep/sweep_results.hpp
// What a sweep produces: rows of metrics, each tagged with its point and the point's parameter
// values, and the two files they are written to (results.csv, results.json; docs/sweeps.md).
// results.json holds everything results.csv does, so shard outputs are merged from it alone,
// and the writers are pure functions of SweepResults: a merged output is byte-identical to the
// unsharded one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace railsim::tools::sweep {

// A metric is a number (an integer such as a size in bytes, or a double) or a short text (the
// algorithm NCCL's tuner chose).
using MetricValue = std::variant<std::int64_t, double, std::string>;

struct Metric {
  std::string name;
  MetricValue value;
};

// One row of an evaluator's answer, its metrics in column order.
using PointRow = std::vector<Metric>;

// Per link, by name, the share of its capacity a training step used: bytes / (capacity x step
// time), 0 to 1 (NaN where the link ended the step with no capacity).
using LinkUtilisation = std::vector<std::pair<std::string, double>>;

// One point's link utilisation, for the report.
struct PointLinks {
  std::size_t point = 0;
  LinkUtilisation links;
};

// Shard K of N (1 <= K <= N) runs the points i with i % N == K - 1, as a Slurm array task
// $SLURM_ARRAY_TASK_ID of --array=1-N would.
struct Shard {
  int index = 1;
  int count = 1;
};

// "K/N"; an InputError naming --shard otherwise.
Shard parse_shard(const std::string& text);

std::string shard_text(const Shard& shard);

bool shard_runs(const Shard& shard, std::size_t point);

struct ResultRow {
  std::size_t point = 0;
  std::vector<std::string> cells;  // per parameter, JSON text (sweep_points.hpp point_cells)
  PointRow metrics;
};

struct SweepResults {
  std::string sweep;       // the sweep's name
  std::string sweep_hash;  // SweepFile::hash
  std::optional<Shard> shard;
  std::vector<std::string> parameters;  // names, in the sweep file's order
  std::size_t points = 0;               // of the whole sweep, not only this shard's
  std::vector<ResultRow> rows;          // by point, then in the evaluator's order
  // In memory only, for `--report`: the points whose evaluator measured their links, by point.
  // Not written to results.csv or results.json (so a merged sweep has none): per-link columns
  // would make the tables as wide as the fabric.
  std::vector<PointLinks> links;
};

// The metric columns: every metric name in the order rows first show it. An InputError when a
// metric is named like a parameter or "point", since the columns would clash.
std::vector<std::string> metric_names(const SweepResults& results);

// A cell's text in CSV and messages: a JSON string without its quotes, anything else as JSON.
std::string cell_text(const std::string& cell_json);

// results.csv: `point`, the parameters, the metrics; a missing metric is an empty field.
std::string results_csv(const SweepResults& results);

// What results.json records of its rows to prove them unchanged: the FNV-1a 64 hash of their
// results.csv (16 hex digits).
std::string rows_hash(const SweepResults& results);

// results.json: {"sweep", "sweep_hash", "shard", "parameters", "metrics", "points",
// "rows_hash", "rows"}.
std::string results_json(const SweepResults& results);

// Reads back what results_json wrote; `file` names it in errors, which include rows that do not
// match their rows_hash (a file edited by hand).
SweepResults parse_results_json(std::string_view text, const std::string& file);

// Creates or replaces `folder` with results.csv and results.json in it, the pair all or nothing
// (tools/cli_support/output_folder.hpp).
void write_results(const std::string& folder, const SweepResults& results);

}  // namespace railsim::tools::sweep
