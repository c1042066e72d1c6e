// File: sim/event_queue.cpp
// EventQueue's slots, handles and sequence numbers over its indexed heap (indexed_heap.hpp).
#include "sim/event_queue.hpp"

#include "sim/assert.hpp"

#include <utility>

namespace railsim::sim {

EventId EventQueue::push(SimTime time, EventHandler handler) {
  const std::uint32_t slot = acquire_slot();
  slots_[slot].handler = std::move(handler);
  heap_.set(Entry{time, next_sequence_++, slot});
  return EventId{slot, slots_[slot].generation};
}

bool EventQueue::pending(EventId id) const {
  return id.slot < slots_.size() && slots_[id.slot].in_use &&
         slots_[id.slot].generation == id.generation;
}

bool EventQueue::cancel(EventId id) {
  if (!pending(id)) {
    return false;
  }
  heap_.erase(id.slot);
  release_slot(id.slot);
  return true;
}

bool EventQueue::reschedule(EventId id, SimTime time) {
  if (!pending(id)) {
    return false;
  }
  // A fresh sequence number puts the event after everything already scheduled at `time`.
  heap_.set(Entry{time, next_sequence_++, id.slot});
  return true;
}

SimTime EventQueue::top_time() const {
  RAILSIM_ASSERT(!heap_.empty(), "top_time() of an empty event queue");
  return heap_.top().time;
}

EventQueue::Popped EventQueue::pop() {
  RAILSIM_ASSERT(!heap_.empty(), "pop() of an empty event queue");
  const Entry top = heap_.top();
  Popped popped{top.time, top.sequence, std::move(slots_[top.id].handler)};
  heap_.pop();
  release_slot(top.id);
  return popped;
}

std::uint32_t EventQueue::acquire_slot() {
  if (free_slots_.empty()) {
    slots_.emplace_back();
    free_slots_.push_back(static_cast<std::uint32_t>(slots_.size() - 1));
  }
  const std::uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  slots_[slot].in_use = true;
  return slot;
}

void EventQueue::release_slot(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.handler = nullptr;
  s.in_use = false;
  ++s.generation;  // Invalidates every EventId still naming this slot.
  free_slots_.push_back(slot);
}

}  // namespace railsim::sim
