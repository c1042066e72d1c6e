// File: sim/simulator.cpp
// The event loop.
#include "sim/simulator.hpp"

#include "sim/assert.hpp"
#include "sim/input_error.hpp"

#include <utility>

namespace railsim::sim {
namespace {

// One round of a 64-bit mix (splitmix64's finaliser) folding `value` into `hash`.
std::uint64_t mix(std::uint64_t hash, std::uint64_t value) {
  std::uint64_t z = hash ^ (value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void require_not_past(SimTime time, SimTime now) {
  if (time < now) {
    throw InputError("cannot schedule an event at " + format_time(time) +
                     ", before the current time " + format_time(now));
  }
}

}  // namespace

EventId Simulator::schedule_at(SimTime time, EventHandler handler) {
  require_not_past(time, now_);
  return queue_.push(time, std::move(handler));
}

EventId Simulator::schedule_after(Duration delay, EventHandler handler) {
  if (delay < Duration::zero()) {
    throw InputError("cannot schedule an event after a negative delay of " +
                     format_duration(delay));
  }
  return queue_.push(now_ + delay, std::move(handler));
}

bool Simulator::reschedule(EventId id, SimTime time) {
  require_not_past(time, now_);
  return queue_.reschedule(id, time);
}

void Simulator::run_one() {
  EventQueue::Popped event = queue_.pop();
  RAILSIM_ASSERT(event.time >= now_, "the event queue returned an event from the past");
  now_ = event.time;
  ++events_processed_;
  trace_hash_ =
      mix(mix(trace_hash_, static_cast<std::uint64_t>(event.time.time_since_epoch().count())),
          event.sequence);
  event.handler();
}

bool Simulator::step() {
  if (queue_.empty()) {
    return false;
  }
  run_one();
  return true;
}

void Simulator::run() {
  while (step()) {
  }
}

void Simulator::run_until(SimTime until) {
  require_not_past(until, now_);
  while (!queue_.empty() && queue_.top_time() <= until) {
    run_one();
  }
  now_ = until;
}

}  // namespace railsim::sim
