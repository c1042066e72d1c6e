// File: sim/simulator.hpp
// Simulator: the clock, the event queue and the random source of one simulation.
//
// There is no global simulator: every model takes a Simulator& explicitly, so independent
// simulations (the points of a parallel sweep) can run at once in one process. The random
// engine is owned and seeded here, so the same seed gives the same run.
#pragma once

#include "sim/event_queue.hpp"
#include "sim/time.hpp"

#include <cstdint>
#include <random>

namespace railsim::sim {

class Simulator {
 public:
  explicit Simulator(std::uint64_t seed = 0) : rng_(seed) {}

  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  SimTime now() const { return now_; }

  // Schedules `handler` at `time`, which must not lie in the past (InputError otherwise).
  EventId schedule_at(SimTime time, EventHandler handler);
  EventId schedule_after(Duration delay, EventHandler handler);

  bool cancel(EventId id) { return queue_.cancel(id); }

  // Moves a pending event; `time` must not lie in the past. False if the event is not pending.
  bool reschedule(EventId id, SimTime time);

  bool pending(EventId id) const { return queue_.pending(id); }

  // Runs the earliest pending event; false (and nothing happens) when none is left.
  bool step();

  // Runs events in (time, sequence) order until none is left.
  void run();

  // Runs every event at or before `until`, then sets the clock to `until`.
  void run_until(SimTime until);

  std::uint64_t events_processed() const { return events_processed_; }

  std::size_t events_pending() const { return queue_.size(); }

  // A running hash of the (time, sequence) key of every event run so far: two runs with the
  // same inputs and seed produce the same value, so comparing it is a cheap determinism check.
  std::uint64_t trace_hash() const { return trace_hash_; }

  std::mt19937_64& rng() { return rng_; }

 private:
  void run_one();

  EventQueue queue_;
  SimTime now_ = kTimeZero;
  std::uint64_t events_processed_ = 0;
  std::uint64_t trace_hash_ = 0xcbf29ce484222325ULL;
  std::mt19937_64 rng_;
};

}  // namespace railsim::sim
