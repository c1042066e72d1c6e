// File: sim/event_queue.hpp
// EventQueue: pending events ordered by (time, sequence number).
//
// Tie-break rule: events at the same SimTime run in the order they were scheduled (FIFO); a
// rescheduled event takes a fresh sequence number, as if it had been cancelled and scheduled anew.
// The order therefore depends only on the calls made, never on addresses or hashing, so runs are
// deterministic.
//
// Implementation: an indexed 4-ary min-heap (indexed_heap.hpp) whose ids are the events' slots,
// so cancel and reschedule are true O(log n) removals and key changes rather than lazy
// tombstones: a flow's finish event moves on every rate change, and tombstones would accumulate
// by the million.
#pragma once

#include "sim/indexed_heap.hpp"
#include "sim/time.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace railsim::sim {

// A handle to a scheduled event. It stays safe to use after the event ran or was cancelled:
// the generation then no longer matches and the queue treats it as absent.
struct EventId {
  std::uint32_t slot = kNoSlot;
  std::uint32_t generation = 0;

  static constexpr std::uint32_t kNoSlot = 0xffffffffU;

  constexpr bool valid() const { return slot != kNoSlot; }

  constexpr bool operator==(const EventId&) const = default;
};

using EventHandler = std::function<void()>;

class EventQueue {
 public:
  EventId push(SimTime time, EventHandler handler);

  // Removes a pending event; false if it already ran or was cancelled.
  bool cancel(EventId id);

  // Moves a pending event to a new time (with a fresh sequence number); false if not pending.
  bool reschedule(EventId id, SimTime time);

  bool pending(EventId id) const;

  bool empty() const { return heap_.empty(); }

  std::size_t size() const { return heap_.size(); }

  // Time of the earliest event; the queue must not be empty.
  SimTime top_time() const;

  // A popped event: its key and its handler, removed from the queue.
  struct Popped {
    SimTime time;
    std::uint64_t sequence = 0;
    EventHandler handler;
  };

  // Removes and returns the earliest event; the queue must not be empty.
  Popped pop();

 private:
  struct Entry {
    SimTime time;
    std::uint64_t sequence = 0;
    std::uint32_t id = 0;  // the event's slot
  };

  struct Earlier {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.time != b.time ? a.time < b.time : a.sequence < b.sequence;
    }
  };

  struct Slot {
    EventHandler handler;
    std::uint32_t generation = 0;
    bool in_use = false;
  };

  std::uint32_t acquire_slot();
  void release_slot(std::uint32_t slot);

  IndexedHeap<Entry, Earlier> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace railsim::sim
