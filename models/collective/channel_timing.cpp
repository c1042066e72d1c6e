// File: models/collective/channel_timing.cpp
// Slice sharing or the algorithm's recurrence, channel by channel (see the header).
#include "models/collective/channel_timing.hpp"

#include "sim/assert.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace railsim::models {

ChannelTiming::ChannelTiming(std::unique_ptr<const ChannelModel> model,
                             std::vector<sim::Bytes> most,
                             std::vector<std::vector<double>> even_rate,
                             bool even_bounds,
                             std::optional<SliceSharing> sharing)
    : model_(std::move(model)),
      most_(std::move(most)),
      even_rate_(std::move(even_rate)),
      even_bounds_(even_bounds),
      sharing_(std::move(sharing)) {
  RAILSIM_ASSERT(model_, "a channel timing has its algorithm's model");
  RAILSIM_ASSERT(most_.size() == even_rate_.size(),
                 "the busiest bytes and even shares per channel");
  first_.push_back(0);
  for (std::size_t c = 0; c < even_rate_.size(); ++c) {
    first_.push_back(first_.back() + even_rate_[c].size());
    channel_of_.insert(channel_of_.end(), even_rate_[c].size(), static_cast<std::uint32_t>(c));
  }
  RAILSIM_ASSERT(!sharing_ || sharing_->connection_count() == first_.back(),
                 "slice sharing holds every connection of every channel");
}

double ChannelTiming::recurrence_seconds(std::size_t channel,
                                         double floor,
                                         std::span<const double> faster) {
  std::vector<double> seconds_per_byte(first_[channel + 1] - first_[channel]);
  for (std::size_t p = 0; p < seconds_per_byte.size(); ++p) {
    const double rate = faster.empty() ? floor : std::max(floor, faster[p]);
    seconds_per_byte[p] = std::isfinite(rate) ? 1.0 / rate : 0.0;
  }
  const auto c = static_cast<int>(channel);
  auto [it, added] = timed_.try_emplace({model_->recurrence_shape(c), seconds_per_byte}, 0.0);
  if (added) {
    it->second = model_->recurrence_seconds(c, seconds_per_byte);
  }
  return it->second;
}

std::vector<double> ChannelTiming::shared_seconds(const std::vector<double>& floor) {
  std::vector<double> connection_floor(channel_of_.size());
  for (std::size_t i = 0; i < connection_floor.size(); ++i) {
    connection_floor[i] = floor[channel_of_[i]];
  }
  const std::vector<double> held =
      sharing_->held_seconds(connection_floor, [this](std::size_t i, std::int64_t t) {
        const std::uint32_t c = channel_of_[i];
        return model_->transfer_bytes(static_cast<int>(c), static_cast<int>(i - first_[c]), t);
      });
  std::vector<double> seconds(floor.size(), 0.0);
  for (std::size_t i = 0; i < held.size(); ++i) {
    seconds[channel_of_[i]] = std::max(seconds[channel_of_[i]], held[i]);
  }
  return seconds;
}

std::vector<sim::Duration> ChannelTiming::channel_times(const std::vector<sim::Duration>& drains) {
  const std::size_t channels = drains.size();
  RAILSIM_ASSERT(channels == most_.size(), "a drain time per channel");
  // The floor: what the channel's busiest connection moved over its drain time.
  std::vector<double> floor(channels);
  for (std::size_t c = 0; c < channels; ++c) {
    const double drain_s = sim::to_seconds(drains[c]);
    floor[c] = drain_s > 0.0 ? static_cast<double>(most_[c].count) / drain_s
                             : std::numeric_limits<double>::infinity();
  }
  // Sharing moves no connection below its floor, nor, where even_rate shares each link among
  // every connection that crosses it, below that share (it shares a link among those sending at
  // the instant), nor above what it gets alone on its links (SliceSharing::alone_rates): it
  // lands between the recurrence at the faster of the first two and the recurrence at the
  // third, and above the channel's lower bound. Where the bounds are within
  // kSliceSharingTolerance for every channel, the run cannot move the result by more, and it is
  // skipped.
  bool shared = false;
  for (std::size_t c = 0; sharing_ && !shared && c < channels; ++c) {
    const std::span<const double> no_slower =
        even_bounds_ ? std::span<const double>(even_rate_[c]) : std::span<const double>();
    const double slowest =
        recurrence_seconds(c, floor[c], no_slower) / (1.0 + kSliceSharingTolerance);
    if (slowest <= sim::to_seconds(model_->lower_bound(static_cast<int>(c), drains[c]))) {
      continue;  // bandwidth-bound: the bound alone settles it
    }
    const std::span<const double> alone =
        std::span(sharing_->alone_rates()).subspan(first_[c], first_[c + 1] - first_[c]);
    shared = slowest > recurrence_seconds(c, floor[c], alone);
  }
  // A sharing run costs more than its plan's transfers where many connections contest a link;
  // past kSliceSharingWorkLimit the recurrence at the floor, which sharing only improves on,
  // stands for it.
  shared = shared && sharing_->work() <= kSliceSharingWorkLimit;
  std::vector<double> seconds(channels, 0.0);
  if (shared) {
    seconds = shared_seconds(floor);
  } else {
    for (std::size_t c = 0; c < channels; ++c) {
      seconds[c] = recurrence_seconds(c, floor[c], even_rate_[c]);
    }
  }
  std::vector<sim::Duration> times(channels);
  for (std::size_t c = 0; c < channels; ++c) {
    times[c] =
        std::max(model_->lower_bound(static_cast<int>(c), drains[c]), sim::seconds(seconds[c]));
  }
  return times;
}

ChannelTimes connection_channel_times(const sim::FlowNetwork& network,
                                      const GroupPipeline& pipeline,
                                      const CollectiveTiming& timing,
                                      bool positions_apart,
                                      std::unique_ptr<const ChannelModel> model,
                                      std::vector<sim::Bytes> most,
                                      std::optional<std::vector<SharingConnection>> sharing) {
  std::vector<std::vector<double>> even_rate = even_share_rates(
      network, pipeline, timing.wire_factor, timing.connection_cap, positions_apart);
  std::optional<SliceSharing> shared;
  if (sharing) {
    shared.emplace(network, std::move(*sharing), timing.wire_factor, timing.streams);
  }
  // Shared, since a ChannelTimes is copyable; the executor calls it once.
  // A connection's queue pairs take turns in a sharing run but send side by side in its flow
  // groups, so with several the even rate can exceed what sharing ever gives it.
  const bool even_bounds = !positions_apart && timing.qps() == 1;
  auto policy = std::make_shared<ChannelTiming>(
      std::move(model), std::move(most), std::move(even_rate), even_bounds, std::move(shared));
  return
      [policy](const std::vector<sim::Duration>& drains) { return policy->channel_times(drains); };
}

}  // namespace railsim::models
