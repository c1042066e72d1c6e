// File: tools/parallel_runs.hpp
// The one parallel loop of the commands that run the model many times over (`railsim sweep`'s
// points, `railsim diagnose`'s candidate faults, `railsim step --rank-links`' degraded links),
// on oneTBB.
#pragma once

#include <cstddef>
#include <functional>

namespace railsim::tools {

// Runs work(k) for every k in [0, count) on `jobs` threads (0: all cores; more than the cores
// is allowed, for runs that wait on memory), handing the indices out one at a time since runs
// differ in cost. Each run writes only what belongs to its index, so results gathered by index
// are the same whatever the threads. When runs throw, the indices after the first failure are
// skipped, those started finish, and the exception of the lowest failing index is rethrown.
// `done` (may be empty) is called from the running thread after each run.
void run_parallel(std::size_t count,
                  int jobs,
                  const std::function<void(std::size_t)>& work,
                  const std::function<void()>& done = {});

}  // namespace railsim::tools
