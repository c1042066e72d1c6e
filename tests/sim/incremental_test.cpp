// File: tests/sim/incremental_test.cpp
// The incremental engine on random scenarios: after every event its rates must equal a full
// max-min solve of the whole network (run_checked), bytes must be conserved on every link, and
// two runs with the same seed must produce the same event log.
#include "tests/sim/network_check.hpp"

#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

namespace railsim::sim::testing {
namespace {

struct ScenarioShape {
  int links;
  int flows;
  int groups;
  bool coincident = false;  // starts on a 10 ms grid and sizes in 100 MB steps: many ties
};

// Random links and flows (some capped, weighted, grouped, zero-sized, starting at random
// times); returns what every flow crossed, and logs (tag, start, drained, end) per delivery.
struct RandomScenario {
  Simulator sim;
  FlowNetwork net{sim};
  std::vector<CrossedBytes> crossed;
  std::vector<std::tuple<std::uint64_t, std::int64_t, std::int64_t, std::int64_t>> log;

  RandomScenario(std::uint64_t seed, ScenarioShape shape) : sim(seed) {
    std::mt19937_64& rng = sim.rng();
    std::uniform_real_distribution<double> capacity(1.0, 100.0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int l = 0; l < shape.links; ++l) {
      net.add_link({gbytes_per_s(capacity(rng)), ns(static_cast<double>(rng() % 500)), ""});
    }
    std::vector<GroupId> groups;
    groups.reserve(static_cast<std::size_t>(shape.groups));
    for (int g = 0; g < shape.groups; ++g) {
      groups.push_back(net.create_group(unit(rng) < 0.3 ? 2.0 : 1.0));
    }
    std::uniform_int_distribution<std::uint32_t> pick(0,
                                                      static_cast<std::uint32_t>(shape.links - 1));
    std::uniform_int_distribution<std::int64_t> size(0, 2'000'000'000);
    std::uniform_int_distribution<std::int64_t> start_ps(0, 100'000'000'000);  // 0-100 ms
    for (int f = 0; f < shape.flows; ++f) {
      FlowSpec spec;
      const int length = std::min(shape.links, 1 + static_cast<int>(rng() % 4));
      while (static_cast<int>(spec.path.size()) < length) {
        const LinkId link{pick(rng)};
        if (std::find(spec.path.begin(), spec.path.end(), link) == spec.path.end()) {
          spec.path.push_back(link);
        }
      }
      spec.size = unit(rng) < 0.05 ? bytes(0) : bytes(size(rng));
      std::int64_t start = start_ps(rng);
      if (shape.coincident) {
        spec.size = mb(100) * (spec.size.count / mb(100).count);
        start -= start % ms(10).count();
      }
      if (unit(rng) < 0.2) {
        spec.rate_cap = gbytes_per_s(capacity(rng) / 3.0);
      }
      if (!groups.empty() && unit(rng) < 0.3) {
        spec.group = groups[rng() % groups.size()];
      } else if (unit(rng) < 0.2) {
        spec.weight = 0.5 + 2.0 * unit(rng);
      }
      spec.tag = static_cast<std::uint64_t>(f);
      crossed.push_back({spec.path, spec.size});
      sim.schedule_at(at(ps(start)), [this, spec = std::move(spec)]() mutable {
        spec.on_complete = [this](const FlowRecord& r) {
          log.emplace_back(r.tag, r.start.time_since_epoch().count(),
                           r.drained.time_since_epoch().count(), r.end.time_since_epoch().count());
        };
        net.start_flow(std::move(spec));
      });
    }
  }
};

class IncrementalEngine : public ::testing::TestWithParam<ScenarioShape> {};

TEST_P(IncrementalEngine, AgreesWithAFullResolveAfterEveryEvent) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RandomScenario s(seed, GetParam());
    run_checked(s.sim, s.net);
    ASSERT_FALSE(::testing::Test::HasFatalFailure()) << "seed " << seed;
    EXPECT_EQ(s.log.size(), static_cast<std::size_t>(GetParam().flows)) << "seed " << seed;
    expect_bytes_conserved(s.net, s.crossed);
    EXPECT_EQ(s.net.draining_flow_count(), 0U);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes,
                         IncrementalEngine,
                         ::testing::Values(ScenarioShape{1, 10, 0},         // one shared link
                                           ScenarioShape{4, 30, 0},         // dense coupling
                                           ScenarioShape{12, 60, 3},        // groups
                                           ScenarioShape{40, 120, 6},       // sparse coupling
                                           ScenarioShape{8, 80, 20},        // many small groups
                                           ScenarioShape{6, 80, 4, true}),  // simultaneous changes
                         [](const auto& test_info) {
                           return "Links" + std::to_string(test_info.param.links) + "Flows" +
                                  std::to_string(test_info.param.flows) + "Groups" +
                                  std::to_string(test_info.param.groups) +
                                  (test_info.param.coincident ? "Coincident" : "");
                         });

TEST(Determinism, SameSeedGivesIdenticalEventLogs) {
  const ScenarioShape shape{16, 200, 5};
  RandomScenario first(42, shape);
  first.sim.run();
  RandomScenario second(42, shape);
  second.sim.run();
  EXPECT_EQ(first.log, second.log);
  EXPECT_EQ(first.sim.trace_hash(), second.sim.trace_hash());
  EXPECT_EQ(first.sim.events_processed(), second.sim.events_processed());
  RandomScenario other(43, shape);
  other.sim.run();
  EXPECT_NE(first.log, other.log);
}

}  // namespace
}  // namespace railsim::sim::testing
