// File: models/collective/collective_trace.hpp
// What a collective run puts in a sim::Trace (docs/trace.md): a process "collectives" with one
// span per call, and a process per rank ("rank 3: node 0 gpu 3", in rank order, naming the
// system's node and GPU: communicator.hpp) with a track per channel and peer the rank sends to
// ("channel 5 > rank 4"; "channel 5 > nvswitch" for an NVSwitch operation): a ring rank has one
// peer per channel, so one track per channel; a tree rank has its parent and children. The
// executors add a span there per transfer when they run chunk-accurate (transfer_dag.hpp), and
// one per connection for a whole channel's pipeline when they run pipelined (group_pipeline.hpp).
// A connection sends one transfer at a time, so the spans of one track follow one another.
#pragma once

#include "models/collective/communicator.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string_view>
#include <tuple>
#include <vector>

namespace railsim::models {

// The peer of an NVSwitch operation: the switch, not a rank.
inline constexpr int kSwitchPeer = -1;
// The peers of CollNet's streams up into a SHARP tree and down out of it, shown on the tracks of
// the heads that feed them.
inline constexpr int kSharpUpPeer = -2;
inline constexpr int kSharpDownPeer = -3;

// Who a traced transfer or pipeline connection is: `rank` sending `bytes` of payload on
// `channel` to `peer`, named by `what`, an index into its owner's list of names.
struct TraceSender {
  int rank = 0;
  int channel = 0;
  int peer = 0;
  std::int64_t bytes = 0;
  std::uint32_t what = 0;
};

class CollectiveTrace {
 public:
  CollectiveTrace(sim::Trace& trace, const Communicator& comm);

  // One collective call, from its start to its last byte held.
  void call(std::string_view what,
            sim::SimTime begin,
            sim::SimTime end,
            std::initializer_list<sim::TraceArg> args = {});

  // `rank` sending `bytes` of channel `channel` to `peer` (or kSwitchPeer), from its first byte
  // leaving to its last.
  void send(int rank,
            int channel,
            int peer,
            std::string_view what,
            sim::SimTime begin,
            sim::SimTime end,
            std::int64_t bytes);

 private:
  sim::TraceTrackId track(int rank, int channel, int peer);

  sim::Trace& trace_;
  sim::TraceTrackId calls_;
  std::vector<sim::TraceProcessId> ranks_;
  std::map<std::tuple<int, int, int>, sim::TraceTrackId> tracks_;
};

}  // namespace railsim::models
