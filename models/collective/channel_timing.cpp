// File: models/collective/channel_timing.cpp
// Slice sharing or the algorithm's recurrence, channel by channel (see the header).
#include "models/collective/channel_timing.hpp"

#include "sim/assert.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>

namespace railsim::models {

namespace {

// Whether connection b of one channel does what connection a of another does, its inputs as far
// into its channel (from b_first) as a's into a's (from a_first); every input lies in its own
// connection's channel.
bool same_connection(const SharingConnection& a,
                     std::size_t a_first,
                     const SharingConnection& b,
                     std::size_t b_first) {
  if (a.transfers != b.transfers || a.offset != b.offset || a.period != b.period ||
      a.cap != b.cap || a.post_s != b.post_s || a.post_every != b.post_every ||
      a.routes.size() != b.routes.size() || a.inputs.size() != b.inputs.size()) {
    return false;
  }
  for (std::size_t r = 0; r < a.routes.size(); ++r) {
    if (a.routes[r].lanes != b.routes[r].lanes || a.routes[r].delay_s != b.routes[r].delay_s) {
      return false;
    }
  }
  for (std::size_t k = 0; k < a.inputs.size(); ++k) {
    if (a.inputs[k] - a_first != b.inputs[k] - b_first) {
      return false;
    }
  }
  return true;
}

// Per channel, the one that stands for it in a sharing run: itself, or the first channel of its
// class of twins, channels of one shape whose connections cross the same links with the same
// transfers and inputs. Only where every channel forwards its own data: one fed by another
// channel has no twin. `first`: per channel and one past, its first connection in `all`.
std::vector<std::uint32_t> twin_channels(const ChannelModel& model,
                                         const std::vector<SharingConnection>& all,
                                         const std::vector<std::size_t>& first,
                                         const std::vector<std::uint32_t>& channel_of) {
  const std::size_t channels = first.size() - 1;
  std::vector<std::uint32_t> twin(channels);
  std::iota(twin.begin(), twin.end(), std::uint32_t{0});
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!std::all_of(all[i].inputs.begin(), all[i].inputs.end(),
                     [&](std::uint32_t input) { return channel_of[input] == channel_of[i]; })) {
      return twin;
    }
  }
  std::vector<std::uint32_t> standing;
  for (std::size_t c = 0; c < channels; ++c) {
    const std::size_t count = first[c + 1] - first[c];
    for (std::size_t k = 0; k < standing.size() && twin[c] == c; ++k) {
      const std::uint32_t d = standing[k];
      bool same = model.recurrence_shape(static_cast<int>(c)) ==
                      model.recurrence_shape(static_cast<int>(d)) &&
                  count == first[d + 1] - first[d];
      for (std::size_t p = 0; same && p < count; ++p) {
        same = same_connection(all[first[d] + p], first[d], all[first[c] + p], first[c]);
      }
      if (same) {
        twin[c] = d;
      }
    }
    if (twin[c] == c) {
      standing.push_back(static_cast<std::uint32_t>(c));
    }
  }
  return twin;
}

}  // namespace

ChannelTiming::ChannelTiming(const sim::FlowNetwork& network,
                             std::unique_ptr<const ChannelModel> model,
                             std::vector<sim::Bytes> most,
                             std::vector<std::vector<double>> even_rate,
                             bool even_bounds,
                             std::optional<SharingInput> sharing)
    : model_(std::move(model)),
      most_(std::move(most)),
      even_rate_(std::move(even_rate)),
      even_bounds_(even_bounds) {
  RAILSIM_ASSERT(model_, "a channel timing has its algorithm's model");
  RAILSIM_ASSERT(most_.size() == even_rate_.size(),
                 "the busiest bytes and even shares per channel");
  first_.push_back(0);
  std::vector<std::uint32_t> channel_of;  // per connection of the plan
  for (std::size_t c = 0; c < even_rate_.size(); ++c) {
    first_.push_back(first_.back() + even_rate_[c].size());
    channel_of.insert(channel_of.end(), even_rate_[c].size(), static_cast<std::uint32_t>(c));
  }
  if (!sharing) {
    return;
  }
  std::vector<SharingConnection>& all = sharing->connections;
  RAILSIM_ASSERT(all.size() == first_.back(),
                 "slice sharing holds every connection of every channel");
  // Twins move in lockstep: the run keeps the first of each class, its connections standing for
  // their twins' (SharingConnection::copies), inputs renumbered.
  twin_ = twin_channels(*model_, all, first_, channel_of);
  shared_first_.assign(twin_.size(), 0);
  for (std::size_t c = 0; c < twin_.size(); ++c) {
    if (twin_[c] == c) {
      shared_first_[c] = run_channel_.size();
      run_channel_.insert(run_channel_.end(), first_[c + 1] - first_[c],
                          static_cast<std::uint32_t>(c));
    }
  }
  std::vector<SharingConnection> kept;
  kept.reserve(run_channel_.size());
  for (const std::uint32_t c : run_channel_) {
    const std::size_t i = first_[c] + (kept.size() - shared_first_[c]);
    SharingConnection& connection = kept.emplace_back(std::move(all[i]));
    for (std::uint32_t& input : connection.inputs) {
      const std::uint32_t from = channel_of[input];
      input = static_cast<std::uint32_t>(shared_first_[from] + (input - first_[from]));
    }
  }
  for (std::size_t c = 0; c < twin_.size(); ++c) {
    for (std::size_t p = 0; twin_[c] != c && p < first_[c + 1] - first_[c]; ++p) {
      ++kept[shared_first_[twin_[c]] + p].copies;
    }
  }
  sharing_.emplace(network, std::move(kept), sharing->wire_factor, sharing->streams);
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
  // Twins drain alike, so their floors agree; where rounding parts them, the class runs at the
  // slowest.
  std::vector<double> class_floor(floor.size(), std::numeric_limits<double>::infinity());
  for (std::size_t c = 0; c < floor.size(); ++c) {
    class_floor[twin_[c]] = std::min(class_floor[twin_[c]], floor[c]);
  }
  std::vector<double> connection_floor(run_channel_.size());
  for (std::size_t i = 0; i < connection_floor.size(); ++i) {
    connection_floor[i] = class_floor[run_channel_[i]];
  }
  const std::vector<double> held = sharing_->held_seconds(connection_floor, [this](std::size_t i,
                                                                                   std::int64_t t) {
    const std::uint32_t c = run_channel_[i];
    return model_->transfer_bytes(static_cast<int>(c), static_cast<int>(i - shared_first_[c]), t);
  });
  std::vector<double> seconds(floor.size(), 0.0);
  for (std::size_t i = 0; i < held.size(); ++i) {
    seconds[run_channel_[i]] = std::max(seconds[run_channel_[i]], held[i]);
  }
  for (std::size_t c = 0; c < floor.size(); ++c) {
    seconds[c] = seconds[twin_[c]];
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
  const auto slower_bound = [&](std::size_t c) {
    const std::span<const double> no_slower =
        even_bounds_ ? std::span<const double>(even_rate_[c]) : std::span<const double>();
    return recurrence_seconds(c, floor[c], no_slower);
  };
  const auto faster_bound = [&](std::size_t c) {
    // A twin moves with its class, so alone on its links it still shares them with its twins.
    const std::span<const double> alone =
        std::span(sharing_->alone_rates())
            .subspan(shared_first_[twin_[c]], first_[c + 1] - first_[c]);
    return std::max(sim::to_seconds(model_->lower_bound(static_cast<int>(c), drains[c])),
                    recurrence_seconds(c, floor[c], alone));
  };
  bool shared = false;
  for (std::size_t c = 0; sharing_ && !shared && c < channels; ++c) {
    const double slowest = slower_bound(c) / (1.0 + kSliceSharingTolerance);
    if (slowest <= sim::to_seconds(model_->lower_bound(static_cast<int>(c), drains[c]))) {
      continue;  // bandwidth-bound: the bound alone settles it
    }
    shared = slowest > faster_bound(c);
  }
  // Bounds at most (1 + tolerance)^2 apart for every channel: the geometric mean of each
  // channel's is within the tolerance of what sharing would give, either way.
  const auto geometric_means = [&]() -> std::optional<std::vector<double>> {
    std::vector<double> mean(channels);
    for (std::size_t c = 0; c < channels; ++c) {
      const double slowest = slower_bound(c);
      const double fastest = faster_bound(c);
      if (slowest > fastest * (1.0 + kSliceSharingTolerance) * (1.0 + kSliceSharingTolerance)) {
        return std::nullopt;
      }
      mean[c] = std::sqrt(slowest * fastest);
    }
    return mean;
  };
  const std::optional<std::vector<double>> means =
      shared ? geometric_means() : std::optional<std::vector<double>>();
  std::vector<double> seconds(channels, 0.0);
  // A sharing run costs more than its plan's transfers where many connections contest a link;
  // past kSliceSharingWorkLimit the recurrence at the slower bound, which sharing only improves
  // on, stands for it.
  if (means) {
    seconds = *means;
  } else if (shared && sharing_->work() <= kSliceSharingWorkLimit) {
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
  std::optional<SharingInput> shared;
  if (sharing) {
    shared = SharingInput{std::move(*sharing), timing.wire_factor, timing.streams};
  }
  // A connection's queue pairs take turns in a sharing run but send side by side in its flow
  // groups, so with several the even rate can exceed what sharing ever gives it.
  const bool even_bounds = !positions_apart && timing.qps() == 1;
  // Shared, since a ChannelTimes is copyable; the executor calls it once.
  auto policy =
      std::make_shared<ChannelTiming>(network, std::move(model), std::move(most),
                                      std::move(even_rate), even_bounds, std::move(shared));
  return
      [policy](const std::vector<sim::Duration>& drains) { return policy->channel_times(drains); };
}

}  // namespace railsim::models
