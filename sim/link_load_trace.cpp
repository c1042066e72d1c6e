// File: sim/link_load_trace.cpp
// A counter track per busy link, created at its first change of load.
#include "sim/link_load_trace.hpp"

#include <fmt/format.h>

#include <utility>

namespace railsim::sim {

LinkLoadTrace::LinkLoadTrace(FlowNetwork& network, Trace& trace, ProcessOf process_of)
    : network_(network), trace_(trace), process_of_(std::move(process_of)) {
  network_.set_link_load_observer([this](const LinkLoadChange& change) { record(change); });
}

LinkLoadTrace::LinkLoadTrace(FlowNetwork& network, Trace& trace, TraceProcessId process)
    : LinkLoadTrace(network, trace, [process](LinkId) { return process; }) {}

LinkLoadTrace::~LinkLoadTrace() { network_.set_link_load_observer({}); }

void LinkLoadTrace::set_recording(bool on, SimTime now) {
  if (on && !recording_) {
    for (std::size_t l = 0; l < counters_.size(); ++l) {
      if (counters_[l]) {
        const LinkId link{static_cast<std::uint32_t>(l)};
        trace_.add_sample(*counters_[l], now, network_.load(link).in_gbytes_per_s());
      }
    }
  }
  recording_ = on;
}

void LinkLoadTrace::record(const LinkLoadChange& change) {
  if (!recording_) {
    return;
  }
  if (change.link.index >= counters_.size()) {
    counters_.resize(network_.link_count());
  }
  std::optional<TraceCounterId>& counter = counters_[change.link.index];
  if (!counter) {
    const std::string_view name = network_.link(change.link).name;
    counter = trace_.add_counter(
        process_of_(change.link),
        name.empty() ? fmt::format("link #{}", change.link.index) : std::string(name),
        std::string(kLinkLoadUnit));
  }
  trace_.add_sample(*counter, change.time, change.load.in_gbytes_per_s());
}

}  // namespace railsim::sim
