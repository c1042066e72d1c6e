// File: models/collective/collective_trace.cpp
// Processes and tracks of a collective run, created in rank order and then as first used.
#include "models/collective/collective_trace.hpp"

#include <fmt/format.h>

#include <string>

namespace railsim::models {

CollectiveTrace::CollectiveTrace(sim::Trace& trace, const Communicator& comm)
    : trace_(trace), calls_(trace.add_track(trace.add_process("collectives"), "calls")) {
  ranks_.reserve(static_cast<std::size_t>(comm.ranks()));
  for (int r = 0; r < comm.ranks(); ++r) {
    ranks_.push_back(trace.add_process(fmt::format("rank {}: node {} gpu {}", r,
                                                   comm.system_node(comm.node_of(r)),
                                                   comm.system_gpu(comm.gpu_of(r)))));
  }
}

void CollectiveTrace::call(std::string_view what,
                           sim::SimTime begin,
                           sim::SimTime end,
                           std::initializer_list<sim::TraceArg> args) {
  trace_.add_span(calls_, what, begin, end, args);
}

void CollectiveTrace::send(int rank,
                           int channel,
                           int peer,
                           std::string_view what,
                           sim::SimTime begin,
                           sim::SimTime end,
                           std::int64_t bytes) {
  trace_.add_span(track(rank, channel, peer), what, begin, end,
                  {{"bytes", bytes}, {"peer", std::int64_t{peer}}});
}

namespace {

std::string track_name(int channel, int peer) {
  switch (peer) {
    case kSwitchPeer:
      return fmt::format("channel {} > nvswitch", channel);
    case kSharpUpPeer:
      return fmt::format("channel {} > sharp", channel);
    case kSharpDownPeer:
      return fmt::format("channel {} < sharp", channel);
    default:
      return fmt::format("channel {} > rank {}", channel, peer);
  }
}

}  // namespace

sim::TraceTrackId CollectiveTrace::track(int rank, int channel, int peer) {
  const auto key = std::make_tuple(rank, channel, peer);
  const auto found = tracks_.find(key);
  if (found != tracks_.end()) {
    return found->second;
  }
  const sim::TraceTrackId id =
      trace_.add_track(ranks_.at(static_cast<std::size_t>(rank)), track_name(channel, peer));
  tracks_.emplace(key, id);
  return id;
}

}  // namespace railsim::models
