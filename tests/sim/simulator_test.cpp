// File: tests/sim/simulator_test.cpp
// Simulator: the clock follows the events, the past is refused, and runs repeat exactly.
#include "sim/simulator.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace railsim::sim {
namespace {

TEST(Simulator, ClockAdvancesToEachEvent) {
  Simulator sim;
  std::vector<SimTime> seen;
  sim.schedule_at(at(us(2)), [&] { seen.push_back(sim.now()); });
  sim.schedule_after(us(1), [&] {
    seen.push_back(sim.now());
    sim.schedule_after(us(5), [&] { seen.push_back(sim.now()); });  // at 1 + 5 = 6 us
  });
  sim.run();
  EXPECT_EQ(seen, (std::vector<SimTime>{at(us(1)), at(us(2)), at(us(6))}));
  EXPECT_EQ(sim.events_processed(), 3U);
}

TEST(Simulator, RunUntilStopsAtTheGivenTime) {
  Simulator sim;
  int ran = 0;
  sim.schedule_at(at(us(1)), [&] { ++ran; });
  sim.schedule_at(at(us(3)), [&] { ++ran; });
  sim.run_until(at(us(2)));
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(sim.now(), at(us(2)));
  EXPECT_EQ(sim.events_pending(), 1U);
}

TEST(Simulator, RefusesThePast) {
  Simulator sim;
  sim.schedule_at(at(us(5)), [] {});
  sim.run();
  EXPECT_THROW(sim.schedule_at(at(us(4)), [] {}), InputError);
  EXPECT_THROW(sim.schedule_after(-ps(1), [] {}), InputError);
  const EventId id = sim.schedule_at(at(us(6)), [] {});
  EXPECT_THROW(sim.reschedule(id, at(us(1))), InputError);
}

TEST(Simulator, SameScheduleGivesTheSameTraceHash) {
  auto run = [](std::uint64_t seed) {
    Simulator sim(seed);
    std::uniform_int_distribution<std::int64_t> delay(0, 1000);
    for (int i = 0; i < 200; ++i) {
      sim.schedule_after(ps(delay(sim.rng())), [] {});
    }
    sim.run();
    return sim.trace_hash();
  };
  EXPECT_EQ(run(1), run(1));
  EXPECT_NE(run(1), run(2));
}

}  // namespace
}  // namespace railsim::sim
