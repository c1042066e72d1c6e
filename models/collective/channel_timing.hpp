// File: models/collective/channel_timing.hpp
// ChannelTiming: how long each channel of a pipelined plan made of connections (a ring's hops, a
// tree's edges) takes once its flow groups have drained (group_pipeline.hpp): one policy for
// every such algorithm, each of which supplies only what differs, as a ChannelModel: its
// per-connection recurrence for a channel, the least time a channel can take, and the bytes of
// each transfer of a connection.
//
// The policy. A channel's flow groups moved its busiest connection's bytes in its drain time:
// that pace is the floor no connection of the channel falls below. Slice sharing
// (slice_sharing.hpp) moves every channel's transfers together, each at the share of its links
// left by the transfers crossing them at the same instant, never below its floor nor above what it
// gets alone on its links; nor below an even share of its links among all the connections that
// cross them, since those sending at an instant are some of them. The timing being monotone in
// every transfer's duration, its result lies between the recurrence with every connection at
// the faster of its floor and what it gets alone (and the channel's lower bound) and the
// recurrence with every connection at its floor or, where faster, that even share. Where those
// are within kSliceSharingTolerance for every channel (bandwidth-bound plans, any plan whose
// connections cannot beat their floor, and one fault's few slow connections among many that
// get their share whatever happens), or the plan has more than kSliceSharingLimit transfers, the
// recurrence times the channels instead at the second: each connection at the floor or, where
// faster, that even share (a long pipeline's view; a chain, which fills from its first hop,
// shares a link only among the connections at the same position, which bounds nothing). Where
// they are within that tolerance twice over for every channel, each channel takes the geometric
// mean of its two bounds, within the tolerance of sharing's result either way, and only plans
// whose bounds lie further apart are shared. No channel takes less than its lower bound.
//
// Twins. Channels of one shape whose connections cross the same links with the same transfers
// (NVLS Tree's channels over one tree on a rail-aligned fabric; rings whose hops hash alike)
// start together and move in lockstep, so slice sharing runs the first of each class, each of its
// connections counting on a link for as many as it stands for, and gives its twins its times:
// sixteen NVLS Tree channels over two trees are two in the run.
#pragma once

#include "models/collective/collective_timing.hpp"
#include "models/collective/group_pipeline.hpp"
#include "models/collective/slice_sharing.hpp"
#include "sim/bytes.hpp"
#include "sim/flow_network.hpp"
#include "sim/time.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace railsim::models {

// What an algorithm tells the policy about its channels. Connections are numbered within a
// channel in the order of its flow groups' members (even_share_rates' positions), which is also
// the order slice sharing lists them, channel by channel.
class ChannelModel {
 public:
  virtual ~ChannelModel() = default;

  // Seconds from channel c's first send until its last transfer is held, by the algorithm's
  // per-connection recurrence (or its closed form), connection p sending seconds_per_byte[p]
  // seconds per payload byte (0 where it takes no time).
  virtual double recurrence_seconds(int channel,
                                    std::span<const double> seconds_per_byte) const = 0;

  // Channels of one shape give the same recurrence_seconds for the same seconds_per_byte (the
  // same tree, pieces and delays), so the policy times each shape and rates once: NVLS Tree's
  // 16 or 32 channels over two trees are two recurrences on a uniform fabric, not 32. By default
  // every channel is its own shape.
  virtual std::size_t recurrence_shape(int channel) const {
    return static_cast<std::size_t>(channel);
  }

  // What channel c cannot beat when its flow groups drained in `drain`.
  virtual sim::Duration lower_bound(int channel, sim::Duration drain) const = 0;

  // The payload bytes of transfer t of connection p of channel c, in the order p sends them.
  virtual sim::Bytes transfer_bytes(int channel, int connection, std::int64_t transfer) const = 0;
};

// What a sharing run of a plan's connections needs besides the network (slice_sharing.hpp).
struct SharingInput {
  std::vector<SharingConnection> connections;  // every channel's, channel by channel
  double wire_factor = 1.0;
  bool streams = false;
};

class ChannelTiming {
 public:
  // `most`: per channel, the payload its busiest connection carries. `even_rate`: per channel and
  // connection, payload B/s at an even share of its links; `even_bounds`: shared among every
  // connection that crosses them, each on one queue pair, which no sharing run moves a
  // connection below. `sharing`: every channel's connections over `network` as it is now, or
  // nullopt for a plan of more than kSliceSharingLimit transfers.
  ChannelTiming(const sim::FlowNetwork& network,
                std::unique_ptr<const ChannelModel> model,
                std::vector<sim::Bytes> most,
                std::vector<std::vector<double>> even_rate,
                bool even_bounds,
                std::optional<SharingInput> sharing);

  // Each channel's time from its first send, given its groups' drain time.
  std::vector<sim::Duration> channel_times(const std::vector<sim::Duration>& drains);

 private:
  // Channel c's recurrence, each connection at `floor` payload B/s or, where `faster` (one rate
  // per connection of the channel, or empty) is faster, at that; a shape's known answer for the
  // same rates is not timed again.
  double recurrence_seconds(std::size_t channel, double floor, std::span<const double> faster);

  // Channel c's time by slice sharing, all channels at once, each connection above its floor.
  std::vector<double> shared_seconds(const std::vector<double>& floor);

  std::unique_ptr<const ChannelModel> model_;
  std::vector<sim::Bytes> most_;
  std::vector<std::vector<double>> even_rate_;
  bool even_bounds_;
  std::optional<SliceSharing> sharing_;
  std::vector<std::size_t> first_;  // per channel and one past: its first connection
  // Slice sharing runs one channel of each class of twins (first among them): per channel, the
  // one that stands for it; per channel that stands, its first connection in the run; per
  // connection of the run, its channel.
  std::vector<std::uint32_t> twin_;
  std::vector<std::size_t> shared_first_;
  std::vector<std::uint32_t> run_channel_;
  // recurrence_seconds' answers by shape and seconds per byte.
  std::map<std::pair<std::size_t, std::vector<double>>, double> timed_;
};

// The timing of a pipeline whose groups' members are connections: their even shares as
// even_share_rates gives them (`positions_apart` for a chain that fills from its first hop), and
// slice sharing over `sharing` (in `network` as it is now) unless nullopt.
ChannelTimes connection_channel_times(const sim::FlowNetwork& network,
                                      const GroupPipeline& pipeline,
                                      const CollectiveTiming& timing,
                                      bool positions_apart,
                                      std::unique_ptr<const ChannelModel> model,
                                      std::vector<sim::Bytes> most,
                                      std::optional<std::vector<SharingConnection>> sharing);

}  // namespace railsim::models
