// File: tools/collective/trace_options.hpp
// `--trace OUT.json [--trace-sizes S,...] [--trace-links N]` of `collective` and `run`: where the
// timeline goes, which of the series' sizes it records (a 31-size series traced whole is
// hundreds of MB), and how many link counters it keeps (docs/trace.md).
#pragma once

#include "tools/chrome_trace.hpp"

#include <boost/program_options.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace railsim::tools {

struct TraceOptions {
  std::string path;                 // empty: no trace
  std::string sizes_text;           // --trace-sizes as typed
  std::string links_text;           // --trace-links as typed
  std::vector<std::int64_t> sizes;  // the sizes recorded, empty: every size (after resolve)
  ChromeTraceOptions written;       // the counters written
};

// Adds --trace, --trace-sizes and --trace-links.
void add_trace_options(boost::program_options::options_description& options, TraceOptions& o);

// Reads --trace-sizes and --trace-links against the sizes the series runs, before any work:
// an InputError when either is given without --trace, names a size the series does not run,
// or is not a count.
void resolve_trace_options(TraceOptions& o, const std::vector<std::int64_t>& series);

}  // namespace railsim::tools
