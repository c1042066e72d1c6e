// File: tests/models/collective/slice_sharing_test.cpp
// Slice sharing against timelines worked by hand: processor sharing on a link, the floor, and a
// ring's forwarding (the recurrence of pipeline_time_test.cpp, each connection on a link of its
// own).
#include "models/collective/slice_sharing.hpp"

#include "sim/simulator.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace railsim::models {
namespace {

struct Links {
  sim::Simulator simulator;
  sim::FlowNetwork network{simulator};

  sim::LinkId add(double bytes_per_s) {
    return network.add_link({sim::bytes_per_s(bytes_per_s), sim::Duration{}, "link"});
  }
};

SharingConnection one_transfer_over(sim::LinkId link) {
  SharingConnection c;
  c.routes = {{{{link}}, 0.0}};
  c.transfers = 1;
  return c;
}

// A (0) and B (1) send 100 bytes each over one 100 B/s link; B forwards what Z (2) sends, 100
// bytes over a 200 B/s link of its own, so it starts at 0.5 s.
std::vector<double> shared_link_held(const std::vector<double>& floor) {
  Links links;
  const sim::LinkId shared = links.add(100.0);
  SharingConnection a = one_transfer_over(shared);
  SharingConnection b = one_transfer_over(shared);
  b.inputs = {2};
  SharingConnection z = one_transfer_over(links.add(200.0));
  SliceSharing sharing(links.network, {a, b, z}, 1.0, false);
  return sharing.held_seconds(floor, [](std::size_t, std::int64_t) { return sim::bytes(100); });
}

TEST(SliceSharing, TransfersOnALinkShareItEvenlyWhileTheyOverlap) {
  // A alone at 100 B/s until 0.5 s (50 bytes), then both at 50 B/s: A drains at 1.5 s with B
  // 50 bytes in, and B moves its last 50 alone at 100 B/s, draining at 2.0 s.
  const std::vector<double> held = shared_link_held({0.0, 0.0, 0.0});
  EXPECT_NEAR(held[0], 1.5, 1e-12);
  EXPECT_NEAR(held[1], 2.0, 1e-12);
  EXPECT_NEAR(held[2], 0.5, 1e-12);
}

// A sends 100 bytes over a 100 B/s link and hands them on 0.1 s later; B forwards them over a
// 200 B/s link of its own, holding them 0.2 s after its last byte.
std::vector<double> forwarded_held(bool streams) {
  Links links;
  SharingConnection a = one_transfer_over(links.add(100.0));
  a.routes[0].delay_s = 0.1;
  SharingConnection b = one_transfer_over(links.add(200.0));
  b.routes[0].delay_s = 0.2;
  b.inputs = {0};
  SliceSharing sharing(links.network, {a, b}, 1.0, streams);
  return sharing.held_seconds({0.0, 0.0},
                              [](std::size_t, std::int64_t) { return sim::bytes(100); });
}

TEST(SliceSharing, StoreAndForwardWaitsForTheWholeInput) {
  // A drains at 1.0 s and is held at 1.1; B then takes 0.5 s: drained 1.6, held 1.8 s.
  const std::vector<double> held = forwarded_held(false);
  EXPECT_NEAR(held[0], 1.1, 1e-12);
  EXPECT_NEAR(held[1], 1.8, 1e-12);
}

TEST(SliceSharing, StreamingForwardsAsTheInputArrives) {
  // B starts once A's first byte is held (0.1 s) and drains at 0.6 s, but its last byte left A
  // at 1.0 s and was held at 1.1: B holds it at 1.1 + 0.2 = 1.3 s.
  const std::vector<double> held = forwarded_held(true);
  EXPECT_NEAR(held[0], 1.1, 1e-12);
  EXPECT_NEAR(held[1], 1.3, 1e-12);
}

TEST(SliceSharing, CapacitiesAreTheLinksAsConstructed) {
  // The links' later changes (a fault window opening mid-run) do not reach a SliceSharing built
  // before them, although it works out its shared links only when first asked: a 100-byte
  // transfer over a 100 B/s link takes 1 s after the link has been cut to 10 B/s too, and then
  // again.
  Links links;
  const sim::LinkId link = links.add(100.0);
  SliceSharing sharing(links.network, {one_transfer_over(link)}, 1.0, false);
  links.network.set_link_capacity(link, sim::bytes_per_s(10.0));
  const auto bytes = [](std::size_t, std::int64_t) { return sim::bytes(100); };
  EXPECT_NEAR(sharing.held_seconds({0.0}, bytes)[0], 1.0, 1e-12);
  EXPECT_NEAR(sharing.held_seconds({0.0}, bytes)[0], 1.0, 1e-12);
}

TEST(SliceSharing, NoConnectionMovesBelowItsFloor) {
  // A's floor is 80 B/s: 50 bytes alone by 0.5 s, then 80 B/s while B gets its 50: A drains at
  // 0.5 + 50 / 80 = 1.125 s, B has moved 31.25 bytes by then and the last 68.75 alone, draining
  // at 1.8125 s.
  const std::vector<double> held = shared_link_held({80.0, 0.0, 0.0});
  EXPECT_NEAR(held[0], 1.125, 1e-12);
  EXPECT_NEAR(held[1], 1.8125, 1e-12);
}

TEST(SliceSharing, RingForwardingFollowsTheRecurrence) {
  // pipeline_time_test's AllReduceStallsWorkedByHand: 2 ranks, 2 steps of 2 slices of 2 KiB, 1 us
  // a slice on each connection's own link; connection 0 hands on 3 us after a drain, connection
  // 1 at once. Each forwards, at step 1, what the other sent of the same slice at step 0:
  // connection 1 is held last at 6 us, connection 0 at 4 + 3 = 7 us.
  Links links;
  std::vector<SharingConnection> ring;
  for (int p = 0; p < 2; ++p) {
    SharingConnection c = one_transfer_over(links.add(2048.0 / 1e-6));
    c.routes[0].delay_s = p == 0 ? 3e-6 : 0.0;
    c.transfers = 4;
    c.inputs = {static_cast<std::uint32_t>(1 - p)};
    c.offset = 2;  // slices per step
    c.period = 4;  // steps x slices
    ring.push_back(c);
  }
  SliceSharing sharing(links.network, ring, 1.0, false);
  const std::vector<double> held =
      sharing.held_seconds({0.0, 0.0}, [](std::size_t, std::int64_t) { return sim::bytes(2048); });
  EXPECT_NEAR(held[0], 7e-6, 1e-15);
  EXPECT_NEAR(held[1], 6e-6, 1e-15);
}

TEST(SliceSharing, LanesSplitATransferAndTheSlowestSetsItsPace) {
  // 300 bytes over two lanes of 150: one lane's link is shared with a 100-byte transfer of
  // another connection (both 100 B/s links), so the lanes move at 50 B/s until that one drains
  // at 2 s (the pair at twice the slowest lane: 100 B/s, 200 bytes), then at 100 B/s each: the
  // last 100 bytes in 0.5 s, drained at 2.5 s.
  Links links;
  const sim::LinkId shared = links.add(100.0);
  const sim::LinkId own = links.add(100.0);
  SharingConnection pair;
  pair.routes = {{{{shared}, {own}}, 0.0}};
  pair.transfers = 1;
  SliceSharing sharing(links.network, {pair, one_transfer_over(shared)}, 1.0, false);
  const std::vector<double> held = sharing.held_seconds(
      {0.0, 0.0}, [](std::size_t i, std::int64_t) { return sim::bytes(i == 0 ? 300 : 100); });
  EXPECT_NEAR(held[0], 2.5, 1e-12);
  EXPECT_NEAR(held[1], 2.0, 1e-12);
}

}  // namespace
}  // namespace railsim::models
