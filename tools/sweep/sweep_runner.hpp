// File: tools/sweep/sweep_runner.hpp
// Running a sweep's points in parallel (oneTBB): every point is evaluated on its own, results
// are kept by point index and gathered in point order, so the output does not depend on the
// number of threads or on which finished first.
#pragma once

#include "tools/sweep/sweep_evaluate.hpp"
#include "tools/sweep/sweep_file.hpp"
#include "tools/sweep/sweep_results.hpp"

#include <optional>
#include <ostream>

namespace railsim::tools::sweep {

struct RunOptions {
  int jobs = 0;                      // threads; 0: all cores (tbb::info::default_concurrency)
  std::optional<Shard> shard;        // only this shard's points; unset: all of them
  std::ostream* progress = nullptr;  // where the progress line goes; null: nowhere
};

// Evaluates the points (the shard's, if any) and returns their rows. When points fail, the error
// of the lowest-numbered failing point is rethrown, whatever the thread timing, after the
// points already started have finished.
SweepResults run_points(const SweepFile& sweep,
                        const Evaluator& evaluate,
                        const RunOptions& options);

}  // namespace railsim::tools::sweep
