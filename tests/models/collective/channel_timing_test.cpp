// File: tests/models/collective/channel_timing_test.cpp
// The channels' timing policy with a stand-in algorithm whose recurrence is the bytes at each
// connection's pace plus a fixed stall: slice sharing where the recurrence at the floor could
// differ from it by more than the tolerance (it lies between that and the recurrence at the
// rates connections get alone), the recurrence at even shares otherwise, never below the lower
// bound.
#include "models/collective/channel_timing.hpp"

#include "sim/simulator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace railsim::models {
namespace {

constexpr std::int64_t kTransferBytes = 100;

// Every connection sends one 100-byte transfer; a channel's recurrence is its slowest
// connection's 100 bytes plus `stall_s`. Records in `asked`, which outlives the model, the
// (channel, connection) of each transfer slice sharing asked for.
struct StallModel final : ChannelModel {
  double stall_s = 0.0;
  std::vector<std::pair<int, int>>* asked = nullptr;
  bool one_shape = false;  // every channel of one shape (else each its own)

  std::size_t recurrence_shape(int channel) const override {
    return one_shape ? 0 : static_cast<std::size_t>(channel);
  }

  double recurrence_seconds(int /*channel*/,
                            std::span<const double> seconds_per_byte) const override {
    double slowest = 0.0;
    for (const double spb : seconds_per_byte) {
      slowest = std::max(slowest, spb);
    }
    return kTransferBytes * slowest + stall_s;
  }

  sim::Duration lower_bound(int /*channel*/, sim::Duration drain) const override { return drain; }

  sim::Bytes transfer_bytes(int channel, int connection, std::int64_t /*transfer*/) const override {
    asked->emplace_back(channel, connection);
    return sim::bytes(kTransferBytes);
  }
};

struct OneLink {
  sim::Simulator simulator;
  sim::FlowNetwork network{simulator};
  sim::LinkId link;

  explicit OneLink(double bytes_per_s = 100.0)
      : link(network.add_link({sim::bytes_per_s(bytes_per_s), sim::Duration{}, "link"})) {}

  // Channel c has connections[c] connections; each one's transfer crosses the same link.
  SharingInput sharing(const std::vector<int>& connections) const {
    SharingInput input;
    for (const int count : connections) {
      for (int p = 0; p < count; ++p) {
        SharingConnection& c = input.connections.emplace_back();
        c.routes = {{{{link}}, 0.0}};
        c.transfers = 1;
      }
    }
    return input;
  }
};

// `even_bounds`: even_rate is a share among every connection that crosses a link (ChannelTiming).
// `links`: slice sharing over its link (nullptr: none).
std::vector<sim::Duration> times(std::unique_ptr<StallModel> model,
                                 const std::vector<int>& connections,
                                 double even_rate,
                                 const OneLink* links,
                                 sim::Duration drain,
                                 bool even_bounds = true) {
  std::vector<std::vector<double>> even;
  even.reserve(connections.size());
  for (const int count : connections) {
    even.emplace_back(static_cast<std::size_t>(count), even_rate);
  }
  OneLink none;
  ChannelTiming timing(
      (links != nullptr ? links : &none)->network, std::move(model),
      std::vector<sim::Bytes>(connections.size(), sim::bytes(kTransferBytes)), std::move(even),
      even_bounds, links != nullptr ? std::optional(links->sharing(connections)) : std::nullopt);
  return timing.channel_times(std::vector<sim::Duration>(connections.size(), drain));
}

TEST(ChannelTiming, TheRecurrenceTimesChannelsThatSharingCannotMoveByMoreThanTheTolerance) {
  // Drained in 1 s, so the floor is 100 B/s; the recurrence there takes 1.004 s, within 0.5% of
  // the lower bound, so it times the channel (at even shares no faster than the floor).
  OneLink links;
  auto model = std::make_unique<StallModel>();
  model->stall_s = 0.004;
  std::vector<std::pair<int, int>> asked;
  model->asked = &asked;
  const auto result = times(std::move(model), {1}, 50.0, &links, sim::seconds(1.0));
  EXPECT_EQ(result, (std::vector<sim::Duration>{sim::seconds(1.004)}));
  EXPECT_TRUE(asked.empty());
}

// Two channels of one and two connections, each sending 100 bytes over one link of
// `link_bytes_per_s`, drained in 1 s (a floor of 100 B/s), with a stall of 0.5 s: the channels'
// times, and which transfers slice sharing asked for.
std::pair<std::vector<sim::Duration>, std::vector<std::pair<int, int>>> stalled_pair(
    double link_bytes_per_s) {
  OneLink links(link_bytes_per_s);
  auto model = std::make_unique<StallModel>();
  model->stall_s = 0.5;
  std::vector<std::pair<int, int>> asked;
  model->asked = &asked;
  auto result = times(std::move(model), {1, 2}, 50.0, &links, sim::seconds(1.0));
  return {std::move(result), std::move(asked)};
}

TEST(ChannelTiming, SharingTimesChannelsWhereTheRecurrenceMightDifferMore) {
  // A stall of 0.5 s could matter. Three connections share a 300 B/s link, each with its floor
  // of 100 B/s: alone, one could move at 300 B/s, where the recurrence takes 0.83 s against 1.5 s
  // at the floor, so slice sharing times both channels. Each connection moves at 100 B/s and is
  // held at 1 s; every channel's connection was asked for its transfer once.
  const auto [result, asked] = stalled_pair(300.0);
  EXPECT_EQ(result, (std::vector<sim::Duration>{sim::seconds(1.0), sim::seconds(1.0)}));
  EXPECT_EQ(asked, (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}, {1, 1}}));
}

TEST(ChannelTiming, SharingIsSkippedWhereNoConnectionCanBeatItsFloor) {
  // As above on a 100 B/s link: alone, a connection gets no more than its floor, so sharing
  // cannot move it from the recurrence at the floor (0.5 s stall + 1 s), which times the channels
  // (at even shares, 50 B/s, no faster than the floor); nothing was asked.
  const auto [result, asked] = stalled_pair(100.0);
  EXPECT_EQ(result, (std::vector<sim::Duration>{sim::seconds(1.5), sim::seconds(1.5)}));
  EXPECT_TRUE(asked.empty());
}

TEST(ChannelTiming, SharingIsSkippedWhereAnEvenShareAmongAllIsWhatEachGetsAlone) {
  // Channels of one and two connections on a 300 B/s link, drained in 0.5 s (a floor of 200
  // B/s), a stall of 0.5 s, and an even share given as 300 B/s each: were it a share among all,
  // no sharing run could move a connection below 300 B/s, nor above it (alone on the link), so
  // the recurrence there, 1/3 s + 0.5 s, times both channels, and nothing was asked. Given as a
  // share at one position of a chain it bounds nothing: the recurrence at the floor (1 s) is more
  // than 2% from 0.83 s, and sharing runs.
  std::vector<std::pair<int, int>> asked;
  const auto timed = [&](bool even_bounds) {
    OneLink links(300.0);
    auto model = std::make_unique<StallModel>();
    model->stall_s = 0.5;
    model->asked = &asked;
    return times(std::move(model), {1, 2}, 300.0, &links, sim::seconds(0.5), even_bounds);
  };
  const sim::Duration expected = sim::seconds(0.5) + sim::seconds(1.0 / 3.0);
  EXPECT_EQ(timed(true), (std::vector<sim::Duration>{expected, expected}));
  EXPECT_TRUE(asked.empty());
  timed(false);
  EXPECT_FALSE(asked.empty());
}

TEST(ChannelTiming, TwinChannelsAreSharedAsOneThatCountsTwice) {
  // Two channels of one connection each on a 600 B/s link, drained in 0.5 s (a floor of 200
  // B/s), a stall of 0.5 s. Alone on the link with its twin a connection gets 300 B/s (0.83 s by
  // the recurrence, against 1 s at the floor), so sharing runs: each moves its 100 bytes at 300
  // B/s, held at 1/3 s, under the lower bound of 0.5 s. Of one shape, the channels are twins: the
  // run holds the first, standing for both, and asks only for its transfer. On a 400 B/s link a
  // twin gets no more than its floor even alone, so nothing runs; apart, each could get 400.
  const auto timed = [](bool one_shape, double link_bytes_per_s = 600.0) {
    OneLink links(link_bytes_per_s);
    auto model = std::make_unique<StallModel>();
    model->stall_s = 0.5;
    model->one_shape = one_shape;
    std::vector<std::pair<int, int>> asked;
    model->asked = &asked;
    auto result = times(std::move(model), {1, 1}, 50.0, &links, sim::seconds(0.5));
    return std::pair{result, asked};
  };
  const auto [apart, asked_apart] = timed(false);
  const auto [twins, asked_twins] = timed(true);
  EXPECT_EQ(apart, (std::vector<sim::Duration>{sim::seconds(0.5), sim::seconds(0.5)}));
  EXPECT_EQ(twins, apart);
  EXPECT_EQ(asked_apart, (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}}));
  EXPECT_EQ(asked_twins, (std::vector<std::pair<int, int>>{{0, 0}}));
  EXPECT_EQ(timed(false, 400.0).second.size(), 2U);
  EXPECT_TRUE(timed(true, 400.0).second.empty());
}

TEST(ChannelTiming, WithoutSharingTheRecurrenceAtEvenSharesTimesEveryChannel) {
  // Too many transfers to share: the recurrence at the faster of the floor (200 B/s: 100 bytes
  // drained in 0.5 s) and the even share (400 B/s), 0.25 s, plus the stall of 0.5 s: above the
  // lower bound of 0.5 s.
  auto model = std::make_unique<StallModel>();
  model->stall_s = 0.5;
  const auto result = times(std::move(model), {2}, 400.0, nullptr, sim::seconds(0.5));
  EXPECT_EQ(result, (std::vector<sim::Duration>{sim::seconds(0.75)}));
}

TEST(ChannelTiming, NoChannelTakesLessThanItsLowerBound) {
  // The recurrence at even shares (1,000 B/s) gives 0.1 s; the channel drained in 1 s.
  auto model = std::make_unique<StallModel>();
  const auto result = times(std::move(model), {1}, 1000.0, nullptr, sim::seconds(1.0));
  EXPECT_EQ(result, (std::vector<sim::Duration>{sim::seconds(1.0)}));
}

}  // namespace
}  // namespace railsim::models
