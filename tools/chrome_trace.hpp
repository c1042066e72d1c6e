// File: tools/chrome_trace.hpp
// `--trace OUT.json`: a sim::Trace written in Chrome's Trace Event Format (the JSON object
// form), which ui.perfetto.dev and chrome://tracing open. docs/trace.md says what it shows.
#pragma once

#include "sim/trace.hpp"

#include <cstddef>
#include <ostream>
#include <string>

namespace railsim::tools {

// A run's counters can number thousands (one per busy link of a large fabric): past a few dozen
// a viewer shows a wall of tracks, so by default only the busiest are written.
inline constexpr std::size_t kDefaultTracedCounters = 32;

struct ChromeTraceOptions {
  // The counters written: the this many that carried most (the integral of their value over
  // time: bytes, for link loads), ties to the earlier counter; 0: every counter.
  std::size_t max_counters = kDefaultTracedCounters;
};

// Deterministic: the same trace gives the same bytes. Processes become pids 1, 2, ... and
// tracks tids 1, 2, ... (unique across processes), in creation order, with sort indices so
// viewers keep that order; spans are "X" events, samples "C" events, instants global "i"
// events, times in microseconds (fractional, to the picosecond). Drops (see sim::TraceLimits)
// are counted in "otherData" and marked on the timeline by a global instant event where the
// record stops being complete; so are the counters left out ("counters", "counters_written").
void write_chrome_trace(const sim::Trace& trace,
                        std::ostream& out,
                        const ChromeTraceOptions& options = {});

// The same into the file at `path`, all or nothing (cli_support/output_file.hpp): an InputError
// naming it when it cannot be written, and then the file is as it was.
void write_chrome_trace_file(const sim::Trace& trace,
                             const std::string& path,
                             const ChromeTraceOptions& options = {});

}  // namespace railsim::tools
