// File: tools/parallel_runs.cpp
#include "tools/parallel_runs.hpp"

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

namespace railsim::tools {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// Lowers `first` to `index` unless it is already lower.
void note_failure(std::atomic<std::size_t>& first, std::size_t index) {
  std::size_t seen = first.load();
  while (index < seen && !first.compare_exchange_weak(seen, index)) {
  }
}

}  // namespace

void run_parallel(std::size_t count,
                  int jobs,
                  const std::function<void(std::size_t)>& work,
                  const std::function<void()>& done) {
  std::vector<std::exception_ptr> errors(count);
  std::atomic<std::size_t> first_failure{kNone};
  const int cores = tbb::info::default_concurrency();
  const int threads = jobs > 0 ? jobs : cores;
  // TBB caps its workers at one per core unless told otherwise; more jobs than cores is the
  // user's call, so lift the cap while these runs last.
  std::optional<tbb::global_control> allow;
  if (threads > cores) {
    allow.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  }
  tbb::task_arena arena(threads);
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, count, 1),
        [&](const tbb::blocked_range<std::size_t>& range) {
          for (std::size_t k = range.begin(); k != range.end(); ++k) {
            // Runs after a failure are skipped; those before it still run, so the error
            // reported is always the lowest index's.
            if (k > first_failure.load()) {
              continue;
            }
            try {
              work(k);
            } catch (...) {
              errors[k] = std::current_exception();
              note_failure(first_failure, k);
            }
            if (done) {
              done();
            }
          }
        },
        tbb::simple_partitioner());
  });
  if (first_failure.load() != kNone) {
    std::rethrow_exception(errors[first_failure.load()]);
  }
}

}  // namespace railsim::tools
