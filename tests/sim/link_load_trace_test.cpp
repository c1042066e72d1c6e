// File: tests/sim/link_load_trace_test.cpp
// The link-load hook of FlowNetwork and the counter tracks LinkLoadTrace records from it,
// against closed forms (GB = 10^9 bytes; rates in GB/s), and, on random traffic, against the
// engine's own loads after every event.
#include "sim/link_load_trace.hpp"

#include "tests/sim/flow_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

namespace railsim::sim::testing {
namespace {

struct Step {
  std::uint32_t link;
  double ms;
  double gbytes_per_s;
};

// Two flows sharing link s (10), each behind an access link: a0 (100) for f0, a1 (4) for f1.
// Link `idle` (1) carries nothing. Links are numbered s = 0, a0 = 1, a1 = 2, idle = 3.
//   0-100 ms: f0 (2.2 GB) alone, held by s at 10; it has sent 1 GB by 100 ms.
//   100 ms: f1 (1 GB) starts. Filling: both reach 4, where a1 is full and f1 stops; f0 goes on
//     to 6, where s is full (4 + 6 = 10). s stays at 10; a0 drops to 6; a1 rises to 4.
//   300 ms: f0 drains its remaining 1.2 GB at 6 (0.2 s). f1 has 0.2 GB left, alone but held
//     by a1 at 4: s drops to 4, a0 to 0.
//   350 ms: f1 drains its 0.2 GB at 4 (50 ms): s and a1 drop to 0.
class LinkLoadTest : public FlowFixture {
 protected:
  void start_two_flows_sharing_s() {
    s = net.add_link({gbytes_per_s(10), Duration::zero(), "s"});
    a0 = net.add_link({gbytes_per_s(100), Duration::zero(), "a0"});
    a1 = net.add_link({gbytes_per_s(4), Duration::zero(), "a1"});
    idle = net.add_link({gbytes_per_s(1), Duration::zero(), "idle"});
    flow_at(ms(0), 0, spec({a0, s}, mb(2'200)));
    flow_at(ms(100), 1, spec({a1, s}, gb(1)));
  }

  // The steps of the scenario above, in time order, then by link.
  static std::vector<Step> expected_steps() {
    return {{0, 0.0, 10.0},  {1, 0.0, 10.0},  {1, 100.0, 6.0}, {2, 100.0, 4.0},
            {0, 300.0, 4.0}, {1, 300.0, 0.0}, {0, 350.0, 0.0}, {2, 350.0, 0.0}};
  }

  LinkId s, a0, a1, idle;
};

// Steps compared in time order, then by link; times within 2 ps (each drain rounds up < 1 ps).
void expect_steps(std::vector<Step> got, const std::vector<Step>& expected) {
  std::sort(got.begin(), got.end(), [](const Step& a, const Step& b) {
    return std::tie(a.ms, a.link) < std::tie(b.ms, b.link);
  });
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(got[i].link, expected[i].link) << i;
    EXPECT_NEAR(got[i].ms, expected[i].ms, 2e-9) << i;
    EXPECT_NEAR(got[i].gbytes_per_s, expected[i].gbytes_per_s, 1e-9) << i;
  }
}

double in_ms(SimTime t) { return to_seconds(t.time_since_epoch()) * 1e3; }

TEST_F(LinkLoadTest, ObserverSeesEveryStepOfTwoFlowsSharingALinkAndNothingElse) {
  // The steps derived on LinkLoadTest; s keeps 10 at 100 ms, so it gets no report then, and the
  // idle link none at all.
  std::vector<Step> steps;
  net.set_link_load_observer([&](const LinkLoadChange& c) {
    EXPECT_EQ(c.time, sim.now());
    steps.push_back({c.link.index, in_ms(c.time), c.load.in_gbytes_per_s()});
  });
  start_two_flows_sharing_s();
  run();
  expect_steps(steps, expected_steps());
}

TEST_F(LinkLoadTest, CapacityChangeOnABusyLinkIsReported) {
  // One 1 GB flow on a 10 GB/s link; at 50 ms (0.5 GB sent) the link drops to 5 GB/s, so the
  // remaining 0.5 GB takes 100 ms more: loads 10 at 0, 5 at 50 ms, 0 at 150 ms.
  const LinkId l = link(10);
  std::vector<Step> steps;
  net.set_link_load_observer([&](const LinkLoadChange& c) {
    steps.push_back({c.link.index, in_ms(c.time), c.load.in_gbytes_per_s()});
  });
  flow_at(ms(0), 0, spec({l}, gb(1)));
  sim.schedule_at(at(ms(50)), [&] { net.set_link_capacity(l, gbytes_per_s(5)); });
  run();
  expect_steps(steps, {{0, 0.0, 10.0}, {0, 50.0, 5.0}, {0, 150.0, 0.0}});
}

TEST_F(LinkLoadTest, LastReportedLoadIsTheEnginesLoadAfterEveryEvent) {
  // Random traffic on 6 links (paths of 1-3 distinct links, random sizes, caps and start
  // times): after every event that leaves the network settled, each link's last reported load
  // (zero if never reported) equals the engine's load within kRateEpsilon of its capacity.
  // So reporting only the links a re-solve touched misses no change.
  std::mt19937_64 rng(20240601);
  std::vector<LinkId> links;
  links.reserve(6);
  for (int i = 0; i < 6; ++i) {
    links.push_back(link(std::uniform_real_distribution<double>(1.0, 20.0)(rng)));
  }
  std::vector<double> reported(links.size(), 0.0);
  net.set_link_load_observer(
      [&](const LinkLoadChange& c) { reported[c.link.index] = c.load.bytes_per_s; });
  for (std::uint64_t f = 0; f < 60; ++f) {
    std::vector<LinkId> path = links;
    std::shuffle(path.begin(), path.end(), rng);
    path.resize(std::uniform_int_distribution<std::size_t>(1, 3)(rng));
    FlowSpec flow = spec(path, mb(std::uniform_int_distribution<std::int64_t>(1, 50)(rng)));
    if (f % 4 == 0) {
      flow.rate_cap = gbytes_per_s(std::uniform_real_distribution<double>(0.5, 5.0)(rng));
    }
    flow_at(us(std::uniform_real_distribution<double>(0.0, 5'000.0)(rng)), f, flow);
  }
  std::size_t checked = 0;
  while (sim.step()) {
    if (!net.settled()) {
      continue;
    }
    for (const LinkId l : links) {
      EXPECT_NEAR(reported[l.index], net.load(l).bytes_per_s,
                  kRateEpsilon * net.link(l).capacity.bytes_per_s)
          << "link " << l.index << " at " << format_time(sim.now());
    }
    ++checked;
  }
  EXPECT_GT(checked, 100U);
}

TEST_F(LinkLoadTest, TraceHasACounterPerBusyLinkInGigabytesPerSecond) {
  // The steps derived on LinkLoadTest, as samples of counters named after their links under
  // one process; the idle link gets no counter.
  Trace trace;
  const TraceProcessId process = trace.add_process("links");
  LinkLoadTrace recorder(net, trace, process);
  start_two_flows_sharing_s();
  run();

  ASSERT_EQ(trace.counters().size(), 3U);
  std::vector<std::uint32_t> link_of_counter;
  for (const TraceCounter& counter : trace.counters()) {
    EXPECT_EQ(counter.process, process);
    EXPECT_EQ(counter.unit, "GB/s");
    link_of_counter.push_back(counter.name == "s" ? 0U : counter.name == "a0" ? 1U : 2U);
  }
  EXPECT_EQ(trace.counters()[2].name, "a1");  // counters are made as links first get busy
  std::vector<Step> steps;
  for (const TraceSample& sample : trace.samples()) {
    steps.push_back({link_of_counter[sample.counter.index], in_ms(sample.time), sample.value});
  }
  expect_steps(steps, expected_steps());
}

TEST_F(LinkLoadTest, APausedTraceMissesItsStepsAndResumesWithEveryCountersLoad) {
  // Paused from 150 to 320 ms: the 300 ms step is not seen; at 320 ms each counter gets the
  // load its link has then (s 4, a0 0, a1 4), and the 350 ms steps are seen again.
  Trace trace;
  LinkLoadTrace recorder(net, trace, trace.add_process("links"));
  start_two_flows_sharing_s();
  sim.schedule_at(at(ms(150)), [&] { recorder.set_recording(false, sim.now()); });
  sim.schedule_at(at(ms(320)), [&] { recorder.set_recording(true, sim.now()); });
  run();

  ASSERT_EQ(trace.counters().size(), 3U);
  std::vector<Step> steps;
  for (const TraceSample& sample : trace.samples()) {
    const std::string& name = trace.counters()[sample.counter.index].name;
    steps.push_back({name == "s" ? 0U : name == "a0" ? 1U : 2U, in_ms(sample.time), sample.value});
  }
  expect_steps(steps, {{0, 0.0, 10.0},
                       {1, 0.0, 10.0},
                       {1, 100.0, 6.0},
                       {2, 100.0, 4.0},
                       {0, 320.0, 4.0},
                       {1, 320.0, 0.0},
                       {2, 320.0, 4.0},
                       {0, 350.0, 0.0},
                       {2, 350.0, 0.0}});
}

TEST_F(LinkLoadTest, TraceAsksEachLinksProcessOnceAndNamesUnnamedLinksByIndex) {
  // f0 crosses links 0 (named "up") and 1 (unnamed) at 10 GB/s: two counters, "up" under
  // "node 0" and "link #1" under "fabric", each process asked for once per link.
  Trace trace;
  const TraceProcessId node = trace.add_process("node 0");
  const TraceProcessId fabric = trace.add_process("fabric");
  std::vector<std::uint32_t> asked;
  LinkLoadTrace recorder(net, trace, [&](LinkId l) {
    asked.push_back(l.index);
    return l.index == 0 ? node : fabric;
  });
  const LinkId up = net.add_link({gbytes_per_s(10), Duration::zero(), "up"});
  const LinkId unnamed = link(10);
  flow_at(ms(0), 0, spec({up, unnamed}, gb(1)));
  run();
  std::sort(asked.begin(), asked.end());
  EXPECT_EQ(asked, (std::vector<std::uint32_t>{0, 1}));
  ASSERT_EQ(trace.counters().size(), 2U);
  for (const TraceCounter& counter : trace.counters()) {
    EXPECT_EQ(counter.process, counter.name == "up" ? node : fabric) << counter.name;
    EXPECT_TRUE(counter.name == "up" || counter.name == "link #1") << counter.name;
  }
  EXPECT_EQ(trace.samples().size(), 4U);  // 10 then 0 on each: 1 GB at 10 GB/s ends at 100 ms
}

TEST_F(LinkLoadTest, TraceStopsRecordingWhenDestroyed) {
  // Recording until 200 ms covers the steps at 0 and 100 ms (4 of them); the run then goes on
  // with no observer left behind.
  Trace trace;
  {
    LinkLoadTrace recorder(net, trace, trace.add_process("links"));
    start_two_flows_sharing_s();
    sim.run_until(at(ms(200)));
  }
  run();
  EXPECT_EQ(trace.samples().size(), 4U);
  EXPECT_EQ(done.size(), 2U);
}

}  // namespace
}  // namespace railsim::sim::testing
