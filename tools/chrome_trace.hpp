// File: tools/chrome_trace.hpp
// `--trace OUT.json`: a sim::Trace written in Chrome's Trace Event Format (the JSON object
// form), which ui.perfetto.dev and chrome://tracing open. docs/trace.md says what it shows.
#pragma once

#include "sim/trace.hpp"

#include <ostream>
#include <string>

namespace railsim::tools {

// Deterministic: the same trace gives the same bytes. Processes become pids 1, 2, ... and
// tracks tids 1, 2, ... (unique across processes), in creation order, with sort indices so
// viewers keep that order; spans are "X" events, samples "C" events, times in microseconds
// (fractional, to the picosecond). Drops (see sim::TraceLimits) are counted in "otherData"
// and marked on the timeline by a global instant event where the record stops being complete.
void write_chrome_trace(const sim::Trace& trace, std::ostream& out);

// The same into the file at `path`, all or nothing (cli_support/output_file.hpp): an InputError
// naming it when it cannot be written, and then the file is as it was.
void write_chrome_trace_file(const sim::Trace& trace, const std::string& path);

}  // namespace railsim::tools
