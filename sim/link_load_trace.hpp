// File: sim/link_load_trace.hpp
// LinkLoadTrace: records a FlowNetwork's link loads into a Trace, one counter track per link
// that ever carries traffic, with a sample at every change of its load (so the steps are
// exact), in GB/s (10^9 bytes/s). Links that stay idle get no track.
#pragma once

#include "sim/flow_network.hpp"
#include "sim/trace.hpp"

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace railsim::sim {

inline constexpr std::string_view kLinkLoadUnit = "GB/s";

class LinkLoadTrace {
 public:
  // The process a link's counter goes under; asked once per link, when it first carries
  // traffic, so a model can put each node's links under that node.
  using ProcessOf = std::function<TraceProcessId(LinkId)>;

  // Takes the network's link-load observer until destroyed; the network and the trace must
  // outlive this. A counter is named after its link (LinkSpec::name, or "link #N" when empty).
  LinkLoadTrace(FlowNetwork& network, Trace& trace, ProcessOf process_of);

  // Every link's counter under `process`.
  LinkLoadTrace(FlowNetwork& network, Trace& trace, TraceProcessId process);

  LinkLoadTrace(const LinkLoadTrace&) = delete;
  LinkLoadTrace& operator=(const LinkLoadTrace&) = delete;

  ~LinkLoadTrace();

  // Stops recording, or resumes it at `now` with a sample of every counter's current load, so
  // that a trace of some of a run's calls shows only their time and each counter stays exact.
  void set_recording(bool on, SimTime now);

 private:
  void record(const LinkLoadChange& change);

  FlowNetwork& network_;
  Trace& trace_;
  ProcessOf process_of_;
  std::vector<std::optional<TraceCounterId>> counters_;  // by link index
  bool recording_ = true;
};

}  // namespace railsim::sim
