// File: calibrate/parse/nccl_tests.hpp
// What nccl-tests' *_perf programs print: per run, the header block (version, the nThread ...
// settings line, the "Using devices" rank lines), the table of out-of-place and in-place
// results, and the closing "# Avg bus bandwidth" line. A file may hold several runs, with NCCL
// INFO/WARN lines and other chatter in between, and every line may carry an MPI or Slurm
// launcher's prefix (launcher_prefix.hpp). Tables of releases before 2.10 have no root column
// and an error column instead of #wrong. Units as nccl-tests prints them: sizes in
// bytes, times in microseconds, algbw and busbw in GB/s (10^9 bytes per second).
#pragma once

#include "calibrate/parse/nccl_debug.hpp"
#include "calibrate/parse/nccl_environment.hpp"
#include "calibrate/parse/text_input.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railsim::calibrate::parse {

// "#  Rank  0 Group  0 Pid 4180122 on cnode3-002 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3"
struct NcclTestsDevice {
  int rank = 0;
  int group = 0;  // 0 when the release prints no Group
  std::int64_t pid = 0;
  std::string host;
  int device = 0;
  std::string bus_id;  // inside the brackets: "0000:1b:00"
  std::string model;   // "NVIDIA H100 80GB HBM3"
  int line = 0;

  bool operator==(const NcclTestsDevice&) const = default;
};

// One half of a row: out-of-place or in-place.
struct NcclTestsResult {
  double time_us = 0.0;
  double algbw_GBps = 0.0;
  double busbw_GBps = 0.0;
  std::optional<std::int64_t> wrong;  // #wrong; nccl-tests prints N/A when it did not check
  std::optional<double> max_error;    // releases before 2.10: the largest error, not #wrong

  bool operator==(const NcclTestsResult&) const = default;
};

struct NcclTestsRow {
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;            // elements
  std::string type;                  // "float", "double", ...
  std::string redop;                 // "sum", ..., "none" for collectives without a reduction
  std::optional<std::int64_t> root;  // -1 for none; absent before 2.10 (no root column)
  NcclTestsResult out_of_place;
  NcclTestsResult in_place;
  int line = 0;

  bool operator==(const NcclTestsRow&) const = default;
};

struct NcclTestsRun {
  std::string program;  // "all_reduce_perf"; empty when the log does not name it
  std::string op;       // "all_reduce": the program without "_perf"
  std::string version;  // "2.17.8" from "# nccl-tests version 2.17.8 ..."; may be empty
  // The "# nThread 1 nGpus 1 minBytes ... graph: 0" settings in their order, names as printed
  // ("warmup iters"); "step" is the number before "(factor)" or "(bytes)", named in step_kind.
  std::vector<std::pair<std::string, std::int64_t>> settings;
  std::string step_kind;
  std::vector<NcclTestsDevice> devices;  // the "Using devices" lines, one per rank
  std::vector<NcclTestsRow> rows;
  std::optional<std::int64_t> out_of_bounds;  // "# Out of bounds values : 0 OK"
  std::optional<double> avg_busbw_GBps;       // "# Avg bus bandwidth : 437.957"
  // The table did not reach its "# Avg bus bandwidth" line (an excerpt that stops there, or a
  // run that died): the rows are real but there may have been more.
  bool truncated = false;
  int line = 0;  // of the run's first line
  // The NCCL variables the log shows it was run with (nccl_environment.hpp), sorted by name.
  std::vector<NcclSetting> environment;

  // Ranks as the rank lines list them; 0 when the log has none.
  int ranks() const { return static_cast<int>(devices.size()); }

  bool operator==(const NcclTestsRun&) const = default;
};

struct NcclTestsOutput {
  std::vector<NcclTestsRun> runs;
  NcclDebugFacts debug;  // from NCCL_DEBUG=INFO lines, when the log has them

  bool operator==(const NcclTestsOutput&) const = default;
};

// Every run in the input; fails (ParseError, file:line) on anything damaged or unknown, and when
// the input holds no nccl-tests table at all.
NcclTestsOutput parse_nccl_tests(const TextInput& input);

// Whether the input holds an nccl-tests column header (for format detection).
bool looks_like_nccl_tests(const TextInput& input);

// The nccl-tests program a command's word runs, its path taken off ("./build/all_reduce_perf"
// gives "all_reduce_perf"); empty for any other word.
std::string_view perf_program(std::string_view word);

}  // namespace railsim::calibrate::parse
