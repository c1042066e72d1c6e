// File: tools/sweep/sweep_runner.cpp
// The points of a sweep, evaluated on the commands' parallel loop (tools/parallel_runs.hpp).
#include "tools/sweep/sweep_runner.hpp"

#include "models/scenario/json_reader.hpp"
#include "sim/input_error.hpp"
#include "tools/parallel_runs.hpp"
#include "tools/progress_bar.hpp"
#include "tools/sweep/sweep_points.hpp"

#include <exception>
#include <vector>

namespace railsim::tools::sweep {
namespace {

PointOutput evaluate_one(const SweepFile& sweep, std::size_t point, const Evaluator& evaluate) {
  const std::string text = point_document(sweep, point);
  const models::scenario::JsonDocument document =
      models::scenario::parse_json(text, point_name(sweep, point));
  return evaluate(document.root());
}

}  // namespace

SweepResults run_points(const SweepFile& sweep,
                        const Evaluator& evaluate,
                        const RunOptions& options) {
  if (options.jobs < 0) {
    throw sim::InputError("--jobs: expected a number of threads >= 1 (0: all cores)");
  }
  std::vector<std::size_t> points;
  for (std::size_t point = 0; point < sweep.points; ++point) {
    if (!options.shard || shard_runs(*options.shard, point)) {
      points.push_back(point);
    }
  }
  std::vector<PointOutput> outputs(points.size());
  ProgressBar progress(points.size(), options.progress);
  std::exception_ptr failure;
  try {
    run_parallel(
        points.size(), options.jobs,
        [&](std::size_t k) { outputs[k] = evaluate_one(sweep, points[k], evaluate); },
        [&progress] { progress.advance(); });
  } catch (...) {
    failure = std::current_exception();  // the progress line is ended first
  }
  progress.finish();
  if (failure) {
    std::rethrow_exception(failure);
  }
  SweepResults results;
  results.sweep = sweep.name;
  results.sweep_hash = sweep.hash;
  results.shard = options.shard;
  results.parameters.reserve(sweep.parameters.size());
  for (const SweepParameter& parameter : sweep.parameters) {
    results.parameters.push_back(parameter.name);
  }
  results.points = sweep.points;
  for (std::size_t k = 0; k < points.size(); ++k) {
    const std::vector<std::string> cells = point_cells(sweep, points[k]);
    for (PointRow& row : outputs[k].rows) {
      results.rows.push_back({points[k], cells, std::move(row)});
    }
    if (!outputs[k].link_utilisation.empty()) {
      results.links.push_back({points[k], std::move(outputs[k].link_utilisation)});
    }
  }
  return results;
}

}  // namespace railsim::tools::sweep
