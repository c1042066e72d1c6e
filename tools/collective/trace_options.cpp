// File: tools/collective/trace_options.cpp
#include "tools/collective/trace_options.hpp"

#include "models/scenario/quantity.hpp"
#include "sim/bytes.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <sstream>

namespace railsim::tools {

void add_trace_options(boost::program_options::options_description& options, TraceOptions& o) {
  namespace po = boost::program_options;
  options.add_options()(
      "trace", po::value(&o.path),
      "also write a Chrome/Perfetto trace of the run to this file (docs/trace.md)")(
      "trace-sizes", po::value(&o.sizes_text),
      "with --trace: record only these of the sizes run, comma-separated (e.g. 1M,1G)")(
      "trace-links", po::value(&o.links_text),
      fmt::format("with --trace: write the load of only this many links, the busiest (default "
                  "{}, 0: every link)",
                  kDefaultTracedCounters)
          .c_str());
}

void resolve_trace_options(TraceOptions& o, const std::vector<std::int64_t>& series) {
  if (o.path.empty() && !(o.sizes_text.empty() && o.links_text.empty())) {
    throw sim::InputError(fmt::format("{}: only with --trace OUT.json",
                                      o.sizes_text.empty() ? "--trace-links" : "--trace-sizes"));
  }
  if (!o.links_text.empty()) {
    const char* end = o.links_text.data() + o.links_text.size();
    std::size_t links = 0;
    const auto [stop, error] = std::from_chars(o.links_text.data(), end, links);
    if (error != std::errc() || stop != end) {
      throw sim::InputError(fmt::format(
          "--trace-links: expected a number of links (0: every link), got '{}'", o.links_text));
    }
    o.written.max_counters = links;
  }
  std::istringstream list(o.sizes_text);
  for (std::string item; std::getline(list, item, ',');) {
    std::int64_t size = 0;
    try {
      size = models::scenario::parse_size(item).count;
    } catch (const sim::InputError& e) {
      throw sim::InputError(fmt::format("--trace-sizes: {}", e.what()));
    }
    if (std::find(series.begin(), series.end(), size) == series.end()) {
      throw sim::InputError(
          fmt::format("--trace-sizes: {} is not one of the sizes run ({} to {}, {} sizes)",
                      sim::size_text(sim::Bytes{size}), sim::size_text(sim::Bytes{series.front()}),
                      sim::size_text(sim::Bytes{series.back()}), series.size()));
    }
    o.sizes.push_back(size);
  }
}

}  // namespace railsim::tools
