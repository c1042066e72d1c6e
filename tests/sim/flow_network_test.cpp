// File: tests/sim/flow_network_test.cpp
// The flow engine against closed forms: each comment derives the expected rates and times by
// hand (GB = 10^9 bytes; rates in GB/s). Every run also checks, after every event, that the
// engine's rates equal a full max-min solve and that bytes are conserved on every link.
#include "sim/flow_network.hpp"

#include "tests/input_error_text.hpp"
#include "tests/sim/flow_fixture.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

namespace railsim::sim::testing {
namespace {

using FlowNetworkTest = FlowFixture;

TEST_F(FlowNetworkTest, OneFlowOnOneLinkDrainsAtLinkRateThenAddsLatency) {
  // 1 MB at 10 GB/s = 100 us to drain, delivered 1 us later.
  const LinkId l = link(10, us(1));
  flow_at(us(0), 0, spec({l}, mb(1)));
  run();
  expect_at(done[0].drained, 100e-6);
  expect_at(done[0].end, 101e-6);
  EXPECT_EQ(net.counters(l).busy_time, us(100));
  EXPECT_EQ(net.counters(l).peak_flows, 1U);
}

TEST_F(FlowNetworkTest, NEqualFlowsOnOneLinkGetCOverNEach) {
  // Four 1 GB flows on 100 GB/s: 25 each, all drain at 1 / 25 = 40 ms.
  const LinkId l = link(100);
  for (std::uint64_t f = 0; f < 4; ++f) {
    flow_at(us(0), f, spec({l}, gb(1)));
  }
  sim.run_until(at(ms(1)));
  for (std::uint64_t f = 0; f < 4; ++f) {
    EXPECT_DOUBLE_EQ(net.rate(ids[f]).in_gbytes_per_s(), 25.0);
  }
  run();
  for (std::uint64_t f = 0; f < 4; ++f) {
    expect_at(done[f].drained, 0.040);
  }
  EXPECT_EQ(net.counters(l).peak_flows, 4U);
}

TEST_F(FlowNetworkTest, TextbookMaxMinRatesChangeAsFlowsLeave) {
  // Links A = 10, B = 4. f0 on A (8 GB), f1 on A and B (2 GB), f2 on B (1 GB).
  // 0-0.5 s: B full at 2 each (f1, f2); A gives f0 10 - 2 = 8. f2 drains at 0.5 s.
  //   By then f0 has sent 4 GB, f1 1 GB.
  // 0.5-0.75 s: f1 alone on B, limited to 4; f0 gets 10 - 4 = 6. f1 drains its last 1 GB at
  //   0.75 s; f0 has sent 4 + 1.5 = 5.5 GB.
  // 0.75-1.0 s: f0 alone at 10 drains its last 2.5 GB at 1.0 s.
  const LinkId a = link(10);
  const LinkId b = link(4);
  flow_at(us(0), 0, spec({a}, gb(8)));
  flow_at(us(0), 1, spec({a, b}, gb(2)));
  flow_at(us(0), 2, spec({b}, gb(1)));
  sim.run_until(at(ms(1)));
  EXPECT_NEAR(net.rate(ids[0]).in_gbytes_per_s(), 8.0, 1e-9);
  EXPECT_NEAR(net.rate(ids[1]).in_gbytes_per_s(), 2.0, 1e-9);
  EXPECT_NEAR(net.rate(ids[2]).in_gbytes_per_s(), 2.0, 1e-9);
  sim.run_until(at(ms(600)));
  EXPECT_NEAR(net.rate(ids[0]).in_gbytes_per_s(), 6.0, 1e-9);
  EXPECT_NEAR(net.rate(ids[1]).in_gbytes_per_s(), 4.0, 1e-9);
  run();
  expect_at(done[2].drained, 0.5);
  expect_at(done[1].drained, 0.75);
  expect_at(done[0].drained, 1.0);
}

TEST_F(FlowNetworkTest, CappedFlowLeavesItsShareToTheOthers) {
  // Link 30; f0 capped at 5 (5 GB), f1 (25 GB) and f2 (12.5 GB) get (30 - 5) / 2 = 12.5.
  // f0 and f2 both drain at 1 s; f1 has 12.5 GB left, alone at 30: 12.5 / 30 s later.
  const LinkId l = link(30);
  FlowSpec capped = spec({l}, gb(5));
  capped.rate_cap = gbytes_per_s(5);
  flow_at(us(0), 0, capped);
  flow_at(us(0), 1, spec({l}, mb(25'000)));
  flow_at(us(0), 2, spec({l}, mb(12'500)));
  run();
  expect_at(done[0].drained, 1.0);
  expect_at(done[2].drained, 1.0);
  expect_at(done[1].drained, 1.0 + 12.5 / 30.0);
}

TEST_F(FlowNetworkTest, StaggeredStartsChangeRatesMidFlow) {
  // The engine demo: three flows into one 50 GB/s port, paths of two 1 us links.
  //   0-5 ms f1 alone at 50 (sends 0.25); 5-10 ms f1, f2 at 25 (f1 0.375, f2 0.125);
  //   10-35 ms f3 capped at 10, f1 and f2 20 each: f3 drains 0.25 GB at 35 ms
  //   (f1 0.875, f2 0.625); 35-40 ms f1, f2 at 25: f1 drains at 40 ms (f2 0.75);
  //   40-45 ms f2 alone at 50 drains at 45 ms. Each is delivered 2 us after draining.
  const LinkId a = link(50, us(1));
  const LinkId b = link(50, us(1));
  const LinkId c = link(25, us(1));
  const LinkId d = link(50, us(1));
  flow_at(ms(0), 1, spec({a, d}, gb(1)));
  flow_at(ms(5), 2, spec({b, d}, gb(1)));
  FlowSpec f3 = spec({c, d}, mb(250));
  f3.rate_cap = gbytes_per_s(10);
  flow_at(ms(10), 3, f3);
  run();
  expect_at(done[3].drained, 0.035);
  expect_at(done[1].drained, 0.040);
  expect_at(done[2].drained, 0.045);
  expect_at(done[1].end, 0.040 + 2e-6);
  expect_at(done[2].end, 0.045 + 2e-6);
  expect_at(done[3].end, 0.035 + 2e-6);
}

TEST_F(FlowNetworkTest, PathLatencyIsAddedOncePerFlow) {
  // Links of 10, 20, 40 GB/s with latencies 1, 2, 3 us. 1 MB drains at the narrowest link's
  // rate in 100 us, and is delivered after the sum of latencies, 6 us, not once per hop or chunk.
  const LinkId a = link(10, us(1));
  const LinkId b = link(20, us(2));
  const LinkId c = link(40, us(3));
  flow_at(us(0), 0, spec({a, b, c}, mb(1)));
  run();
  expect_at(done[0].drained, 100e-6);
  expect_at(done[0].end, 106e-6);
}

TEST_F(FlowNetworkTest, ZeroByteFlowArrivesAfterThePathLatencyAndTakesNoBandwidth) {
  // 1 MB at 10 GB/s alone drains in 100 us; an empty flow on the same link changes nothing.
  const LinkId a = link(10, us(1));
  const LinkId b = link(10, us(2));
  flow_at(us(0), 0, spec({a}, mb(1)));
  flow_at(us(10), 1, spec({a, b}, bytes(0)));
  run();
  expect_at(done[0].drained, 100e-6);
  expect_at(done[1].drained, 10e-6);
  expect_at(done[1].end, 13e-6);
  EXPECT_EQ(net.counters(b).busy_time, Duration::zero());
}

TEST_F(FlowNetworkTest, WeightsSplitABottleneckInProportion) {
  // Link 100; f0 weight 1 (50 GB), f1 weight 3 (75 GB): 25 and 75. f1 drains at 1 s; f0 has
  // 25 GB left, alone at 100: 0.25 s more.
  const LinkId l = link(100);
  flow_at(us(0), 0, spec({l}, gb(50)));
  FlowSpec heavy = spec({l}, gb(75));
  heavy.weight = 3.0;
  flow_at(us(0), 1, heavy);
  run();
  expect_at(done[1].drained, 1.0);
  expect_at(done[0].drained, 1.25);
}

TEST_F(FlowNetworkTest, CapacityChangeMidFlowIsIntegratedPiecewise) {
  // 1 GB on 10 GB/s; at 50 ms the link drops to 5 GB/s. 0.5 GB sent by then; the other half
  // takes 100 ms: drains at 150 ms.
  const LinkId l = link(10);
  flow_at(us(0), 0, spec({l}, gb(1)));
  sim.schedule_at(at(ms(50)), [&] {
    EXPECT_NEAR(net.bytes_sent(ids[0]), 0.5e9, 1.0);
    net.set_link_capacity(l, gbytes_per_s(5));
  });
  run();
  expect_at(done[0].drained, 0.150);
}

TEST_F(FlowNetworkTest, CompletionCallbackCanStartTheNextTransfer) {
  // f0: 1 MB at 10 GB/s, 1 us latency: delivered at 101 us, when f1 (the same) starts:
  // f1 drains at 201 us and is delivered at 202 us.
  const LinkId l = link(10, us(1));
  FlowSpec first = spec({l}, mb(1));
  first.on_complete = [&](const FlowRecord& r) {
    done[0] = r;
    FlowSpec second = spec({l}, mb(1));
    second.on_complete = [&](const FlowRecord& r2) { done[1] = r2; };
    net.start_flow(std::move(second));
  };
  net.start_flow(std::move(first));
  run_checked(sim, net);
  expect_at(done[0].end, 101e-6);
  expect_at(done[1].start, 101e-6);
  expect_at(done[1].end, 202e-6);
}

TEST_F(FlowNetworkTest, DrainCallbackLetsASenderQueueTheNextMessageBeforeDelivery) {
  // f0: 1 MB at 10 GB/s with 5 us of latency drains at 100 us, when f1 starts; f1 drains at
  // 200 us and both arrive 5 us after draining: 105 and 205 us. An empty flow reports its
  // drain at once and arrives one latency later.
  const LinkId l = link(10, us(5));
  std::vector<SimTime> drains;
  FlowSpec first = spec({l}, mb(1));
  first.on_complete = [&](const FlowRecord& r) { done[0] = r; };
  first.on_drained = [&](const FlowRecord& r) {
    drains.push_back(sim.now());
    EXPECT_EQ(r.end, r.drained + us(5));
    FlowSpec second = spec({l}, mb(1));
    second.on_complete = [&](const FlowRecord& r2) { done[1] = r2; };
    second.on_drained = [&](const FlowRecord&) { drains.push_back(sim.now()); };
    net.start_flow(std::move(second));
  };
  net.start_flow(std::move(first));
  FlowSpec empty = spec({l}, bytes(0));
  empty.on_drained = [&](const FlowRecord&) { drains.push_back(sim.now()); };
  empty.on_complete = [&](const FlowRecord& r) { done[2] = r; };
  net.start_flow(std::move(empty));
  run_checked(sim, net);
  ASSERT_EQ(drains.size(), 3U);
  expect_at(drains[0], 0.0);
  expect_at(drains[1], 100e-6);
  expect_at(drains[2], 200e-6);
  expect_at(done[0].end, 105e-6);
  expect_at(done[1].start, 100e-6);
  expect_at(done[1].end, 205e-6);
  expect_at(done[2].end, 5e-6);
}

TEST_F(FlowNetworkTest, CountersRecordBusyTimePeakFlowsAndBytes) {
  // 10 GB/s link. f0: 1 GB from 0 (drains at 0.1 s). f1: 1 GB from 0.5 s (0.6 s). f2, f3:
  // 0.5 GB each from 1 s, sharing (5 GB/s each, both drain at 1.1 s).
  // Busy 0.1 + 0.1 + 0.1 = 0.3 s; peak 2 flows; 3 GB carried.
  const LinkId l = link(10);
  flow_at(ms(0), 0, spec({l}, gb(1)));
  flow_at(ms(500), 1, spec({l}, gb(1)));
  flow_at(ms(1000), 2, spec({l}, mb(500)));
  flow_at(ms(1000), 3, spec({l}, mb(500)));
  run();
  const LinkCounters counters = net.counters(l);
  EXPECT_NEAR(static_cast<double>(counters.busy_time.count()), 0.3e12, 4.0);
  EXPECT_EQ(counters.peak_flows, 2U);
  EXPECT_EQ(counters.active_flows, 0U);
  EXPECT_NEAR(counters.bytes_carried, 3e9, 3e9 * 1e-9);
  expect_at(done[3].drained, 1.1);
}

TEST_F(FlowNetworkTest, RateObserverSeesEveryChange) {
  // Link 10: f0 (20 MB) alone at 10; f1 (5 MB) joins at 1 ms, when f0 has 10 MB left: both at 5.
  // f1 drains at 2 ms; f0 then has 5 MB left, alone at 10 again: drains at 2.5 ms.
  const LinkId l = link(10);

  struct Change {
    std::uint64_t tag;
    double ms;
    double gbytes_per_s;
    bool operator==(const Change&) const = default;
  };

  std::vector<Change> changes;
  net.set_rate_observer([&](const RateChange& c) {
    changes.push_back(
        {c.tag, to_seconds(c.time.time_since_epoch()) * 1e3, c.rate.in_gbytes_per_s()});
  });
  flow_at(ms(0), 0, spec({l}, mb(20)));
  flow_at(ms(1), 1, spec({l}, mb(5)));
  run();
  const std::vector<Change> expected = {{0, 0.0, 10.0}, {1, 1.0, 5.0},  {0, 1.0, 5.0},
                                        {1, 2.0, 0.0},  {0, 2.0, 10.0}, {0, 2.5, 0.0}};
  ASSERT_EQ(changes.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(changes[i].tag, expected[i].tag) << i;
    EXPECT_NEAR(changes[i].ms, expected[i].ms, 1e-8) << i;
    EXPECT_NEAR(changes[i].gbytes_per_s, expected[i].gbytes_per_s, 1e-9) << i;
  }
}

TEST_F(FlowNetworkTest, RejectsBadFlowsAndLinks) {
  const LinkId l = link(10);
  EXPECT_THROW(net.start_flow(spec({}, mb(1))), InputError);           // empty path
  EXPECT_THROW(net.start_flow(spec({l}, bytes(-1))), InputError);      // negative size
  EXPECT_THROW(net.start_flow(spec({LinkId{7}}, mb(1))), InputError);  // dangling link
  FlowSpec weightless = spec({l}, mb(1));
  weightless.weight = 0.0;
  EXPECT_THROW(net.start_flow(weightless), InputError);
  FlowSpec uncapped = spec({l}, mb(1));
  uncapped.rate_cap = bytes_per_s(0.0);
  EXPECT_THROW(net.start_flow(uncapped), InputError);
  FlowSpec orphan = spec({l}, mb(1));
  orphan.group = GroupId{3};
  EXPECT_THROW(net.start_flow(orphan), InputError);                           // dangling group
  EXPECT_THROW(net.add_link({bytes_per_s(0.0), us(1), "zero"}), InputError);  // zero capacity
  EXPECT_THROW(net.add_link({bytes_per_s(-5.0), us(1), "neg"}), InputError);  // negative
  EXPECT_THROW(net.add_link({gbps(100), -us(1), "back"}), InputError);        // negative latency
  EXPECT_THROW(net.set_link_capacity(LinkId{9}, gbps(1)), InputError);
  EXPECT_THROW(net.set_link_capacity(l, bytes_per_s(0.0)), InputError);
  EXPECT_THROW((void)net.rate(FlowId{5, 0}), InputError);
  EXPECT_EQ(net.draining_flow_count(), 0U);  // Nothing half-started was left behind.
}

TEST_F(FlowNetworkTest, ErrorMessagesNameTheLinkAndWhatWasExpected) {
  const LinkId l = net.add_link({gbps(100), us(1), "leaf3>spine0"});
  try {
    net.add_link({gbps(-1), us(1), "leaf3>spine1"});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("link 'leaf3>spine1': capacity -125000000 bytes/s, "
                                         "expected a finite rate > 0"),
              std::string::npos)
        << e.what();
  }
  // A link without a name goes by its index.
  EXPECT_EQ(test::input_error_text([&] {
              net.add_link({gbps(100), -us(1), ""});
            }),
            "link #1: latency -1.000 us, expected >= 0");
  try {
    net.start_flow(spec({l}, bytes(-2)));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("-2 bytes, expected >= 0"), std::string::npos) << e.what();
  }
}

TEST_F(FlowNetworkTest, FlowCrossingALinkTwicePaysTwice) {
  // Link 90 crossed twice by f0 (written and read back) and once by f1: 2t + t = 90, t = 30.
  // f1 (3 GB) and f0 (3 GB) both drain at 0.1 s; the link carried 2 x 3 + 3 = 9 GB.
  const LinkId l = link(90);
  const LinkId other = link(1000);
  flow_at(us(0), 0, spec({l, other, l}, gb(3)));
  flow_at(us(0), 1, spec({l}, gb(3)));
  sim.run_until(at(ms(1)));
  EXPECT_NEAR(net.rate(ids[0]).in_gbytes_per_s(), 30.0, 1e-9);
  EXPECT_NEAR(net.load(l).in_gbytes_per_s(), 90.0, 1e-9);
  run();
  expect_at(done[0].drained, 0.1);
  expect_at(done[1].drained, 0.1);
  EXPECT_NEAR(net.counters(l).bytes_carried, 9e9, 9e9 * 1e-9);
}

TEST_F(FlowNetworkTest, DeliveredFlowsHandlesGoStale) {
  const LinkId l = link(10);
  const FlowId id = net.start_flow(spec({l}, mb(1)));
  EXPECT_TRUE(net.contains(id));
  sim.run();
  EXPECT_FALSE(net.contains(id));
  const FlowId next = net.start_flow(spec({l}, mb(1)));
  EXPECT_EQ(next.slot, id.slot);
  EXPECT_FALSE(net.contains(id));
  EXPECT_TRUE(net.contains(next));
}

}  // namespace
}  // namespace railsim::sim::testing
