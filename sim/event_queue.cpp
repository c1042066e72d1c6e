// File: sim/event_queue.cpp
// The indexed 4-ary heap behind EventQueue. Four children per node halve the tree height of a
// binary heap and keep siblings in one cache line, which is what a pop-heavy queue wants.
#include "sim/event_queue.hpp"

#include "sim/assert.hpp"

#include <utility>

namespace railsim::sim {
namespace {

constexpr std::uint32_t kArity = 4;

}  // namespace

EventId EventQueue::push(SimTime time, EventHandler handler) {
  const std::uint32_t slot = acquire_slot();
  slots_[slot].handler = std::move(handler);
  const auto index = static_cast<std::uint32_t>(heap_.size());
  heap_.push_back(Entry{time, next_sequence_++, slot});
  slots_[slot].heap_index = index;
  sift_up(index);
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
  remove_at(slots_[id.slot].heap_index);
  release_slot(id.slot);
  return true;
}

bool EventQueue::reschedule(EventId id, SimTime time) {
  if (!pending(id)) {
    return false;
  }
  const std::uint32_t index = slots_[id.slot].heap_index;
  Entry& entry = heap_[index];
  const bool moved_earlier = time < entry.time;
  entry.time = time;
  // A fresh sequence number puts the event after everything already scheduled at `time`.
  entry.sequence = next_sequence_++;
  if (moved_earlier) {
    sift_up(index);
  } else {
    sift_down(index);
  }
  return true;
}

SimTime EventQueue::top_time() const {
  RAILSIM_ASSERT(!heap_.empty(), "top_time() of an empty event queue");
  return heap_.front().time;
}

EventQueue::Popped EventQueue::pop() {
  RAILSIM_ASSERT(!heap_.empty(), "pop() of an empty event queue");
  const Entry top = heap_.front();
  Popped popped{top.time, top.sequence, std::move(slots_[top.slot].handler)};
  remove_at(0);
  release_slot(top.slot);
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

void EventQueue::remove_at(std::uint32_t index) {
  const auto last = static_cast<std::uint32_t>(heap_.size() - 1);
  if (index == last) {
    heap_.pop_back();
    return;
  }
  const Entry moved = heap_[last];
  heap_.pop_back();
  place(index, moved);
  // The entry moved into the hole may belong above or below it.
  if (index > 0 && earlier(moved, heap_[(index - 1) / kArity])) {
    sift_up(index);
  } else {
    sift_down(index);
  }
}

void EventQueue::place(std::uint32_t index, const Entry& entry) {
  heap_[index] = entry;
  slots_[entry.slot].heap_index = index;
}

void EventQueue::sift_up(std::uint32_t index) {
  const Entry entry = heap_[index];
  while (index > 0) {
    const std::uint32_t parent = (index - 1) / kArity;
    if (!earlier(entry, heap_[parent])) {
      break;
    }
    place(index, heap_[parent]);
    index = parent;
  }
  place(index, entry);
}

void EventQueue::sift_down(std::uint32_t index) {
  const Entry entry = heap_[index];
  const auto size = static_cast<std::uint32_t>(heap_.size());
  while (true) {
    const std::uint32_t first_child = index * kArity + 1;
    if (first_child >= size) {
      break;
    }
    std::uint32_t best = first_child;
    const std::uint32_t end = first_child + kArity < size ? first_child + kArity : size;
    for (std::uint32_t child = first_child + 1; child < end; ++child) {
      if (earlier(heap_[child], heap_[best])) {
        best = child;
      }
    }
    if (!earlier(heap_[best], entry)) {
      break;
    }
    place(index, heap_[best]);
    index = best;
  }
  place(index, entry);
}

}  // namespace railsim::sim
