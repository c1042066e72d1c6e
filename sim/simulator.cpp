// File: sim/simulator.cpp
// The event loop.
#include "sim/simulator.hpp"

#include "sim/assert.hpp"
#include "sim/hash_mix.hpp"
#include "sim/input_error.hpp"

#include <utility>

namespace railsim::sim {
namespace {

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
  trace_hash_ = hash_mix(
      hash_mix(trace_hash_, static_cast<std::uint64_t>(event.time.time_since_epoch().count())),
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
