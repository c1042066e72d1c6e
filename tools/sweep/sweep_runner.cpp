// File: tools/sweep/sweep_runner.cpp
// The parallel loop. Points are independent and often unequal in cost (more nodes, more flows),
// so the loop hands them out one at a time (grain 1) rather than in fixed blocks.
#include "tools/sweep/sweep_runner.hpp"

#include "models/scenario/json_reader.hpp"
#include "sim/input_error.hpp"
#include "tools/sweep/progress_bar.hpp"
#include "tools/sweep/sweep_points.hpp"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <exception>
#include <optional>
#include <vector>

namespace railsim::tools::sweep {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

PointOutput evaluate_one(const SweepFile& sweep, std::size_t point, const Evaluator& evaluate) {
  const std::string text = point_document(sweep, point);
  const models::scenario::JsonDocument document =
      models::scenario::parse_json(text, point_name(sweep, point));
  return evaluate(document.root());
}

// Lowers `first` to `index` unless it is already lower.
void note_failure(std::atomic<std::size_t>& first, std::size_t index) {
  std::size_t seen = first.load();
  while (index < seen && !first.compare_exchange_weak(seen, index)) {
  }
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
  std::vector<std::exception_ptr> errors(points.size());
  std::atomic<std::size_t> first_failure{kNone};
  ProgressBar progress(points.size(), options.progress);
  const int cores = tbb::info::default_concurrency();
  const int jobs = options.jobs > 0 ? options.jobs : cores;
  // TBB caps its workers at one per core unless told otherwise; --jobs above the core count is
  // the user's call (points waiting on memory), so lift the cap while this sweep runs.
  std::optional<tbb::global_control> allow;
  if (jobs > cores) {
    allow.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(jobs));
  }
  tbb::task_arena arena(jobs);
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, points.size(), 1),
        [&](const tbb::blocked_range<std::size_t>& range) {
          for (std::size_t k = range.begin(); k != range.end(); ++k) {
            // Points after a failure are skipped; those before it still run, so the error
            // reported is always the lowest-numbered point's.
            if (k > first_failure.load()) {
              continue;
            }
            try {
              outputs[k] = evaluate_one(sweep, points[k], evaluate);
            } catch (...) {
              errors[k] = std::current_exception();
              note_failure(first_failure, k);
            }
            progress.advance();
          }
        },
        tbb::simple_partitioner());
  });
  progress.finish();
  if (first_failure.load() != kNone) {
    std::rethrow_exception(errors[first_failure.load()]);
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
