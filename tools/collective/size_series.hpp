// File: tools/collective/size_series.hpp
// SizeSeries: one collective at each of nccl-tests' sizes (-b, -e, -f) on one system, and the
// three ways `collective` and `run` print it: nccl-tests' *_perf table (design.md §5), JSON and
// CSV. (A sweep, in railsim, is the design grid of tools/sweep/.)
#pragma once

#include "models/collective/collective_run.hpp"
#include "models/scenario/scenario_file.hpp"
#include "models/workload/work_limit.hpp"
#include "sim/trace.hpp"
#include "tools/cli_support/output_format.hpp"
#include "tools/collective/trace_options.hpp"
#include "tools/profile_option.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::tools {

struct SeriesRow {
  std::int64_t size = 0;   // bytes, as nccl-tests prints it
  std::int64_t count = 0;  // elements, per rank for AllGather and ReduceScatter
  models::CollectiveResult result;
};

struct SizeSeries {
  std::string system_name;
  std::string gpu_model;
  models::CollectiveRequest request;  // as asked: unset choices are NCCL's ("auto")
  std::int64_t factor = 2;
  std::vector<SeriesRow> rows;
  std::string profile_path;           // the calibration profile applied, if any
  std::vector<double> time_sigma_us;  // with a profile: each row's one-sigma band
};

// nccl-tests' sizes from -b, -e and -f: min, min x f, ... up to max.
std::vector<std::int64_t> series_sizes(std::int64_t min, std::int64_t max, std::int64_t factor);

// Refuses, naming `where` (the scenario file, or the option that set the node count), a series
// whose system and collective would take more memory than `limit` allows
// (models/workload/work_limit.hpp): called before anything is built.
void check_series_memory(const models::scenario::SystemFile& file,
                         const models::scenario::CollectiveWorkload& workload,
                         const models::WorkLimit& limit,
                         std::string_view where);

// The sizes the workload runs.
std::vector<std::int64_t> workload_sizes(const models::scenario::CollectiveWorkload& workload);

// What a series records on a trace: the calls of `sizes` (empty: of every size).
struct SeriesTrace {
  sim::Trace* trace = nullptr;  // null: nothing is recorded
  std::vector<std::int64_t> sizes;
};

// Builds the system (faults applied, background streams started) and runs the workload's
// collective at every size, one after another on the same network, calling `on_size` after
// each. With a trace, marks each fault applied and records each traced call, every rank's sends
// (models/collective/collective_trace.hpp) and every busy link's load while it runs.
SizeSeries run_size_series(const models::scenario::SystemFile& file,
                           const std::vector<models::BackgroundFlow>& background,
                           const models::scenario::CollectiveWorkload& workload,
                           const SeriesTrace& trace,
                           const std::function<void()>& on_size = {});

// run_size_series on the scenario with a calibration profile's parameters applied, when there is
// one: then each row also gets its one-sigma band, and stderr a warning for every way the series
// leaves the profile's calibrated range.
SizeSeries run_calibrated_series(const models::scenario::ScenarioFile& scenario,
                                 const models::scenario::CollectiveWorkload& workload,
                                 const LoadedProfile* profile,
                                 const SeriesTrace& trace,
                                 const std::function<void()>& on_size = {});

void print_nccl_tests(std::ostream& out, const SizeSeries& series);
void print_json(std::ostream& out, const SizeSeries& series);
void print_csv(std::ostream& out, const SizeSeries& series);

// The scenario's workload; an InputError naming `path` when it has none.
models::scenario::CollectiveWorkload workload_of(const models::scenario::ScenarioFile& scenario,
                                                 const std::string& path);

// `collective`'s --format: nccl-tests' columns, JSON or CSV (`run` calls the first "table").
inline constexpr std::array<Choice<OutputFormat>, 3> kNcclTestsJsonCsv = {
    {{"nccl-tests", OutputFormat::kText},
     {"json", OutputFormat::kJson},
     {"csv", OutputFormat::kCsv}}};

// Prints in `format`: kText as nccl-tests, kJson or kCsv.
void print_series(std::ostream& out, const SizeSeries& series, OutputFormat format);

// Runs the series, with a progress line on `progress` (tools/progress_bar.hpp), then prints it
// and, when `trace.path` is not empty, writes its trace there: nothing is printed or written
// unless every size ran. `trace` must have been resolved (resolve_trace_options).
void run_and_print(std::ostream& out,
                   const models::scenario::ScenarioFile& scenario,
                   const models::scenario::CollectiveWorkload& workload,
                   OutputFormat format,
                   const TraceOptions& trace,
                   const LoadedProfile* profile,
                   std::ostream* progress);

}  // namespace railsim::tools
