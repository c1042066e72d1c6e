// File: sim/indexed_heap.hpp
// IndexedHeap: a min-heap of entries, each named by a small integer id, that keeps every id's
// position so that an entry can be re-keyed or removed in O(log n) instead of left behind as a
// tombstone. EventQueue (a flow's drain event moves on every rate change) and the slice sharing
// of models/collective (a connection's next event moves whenever its share does) are built on it.
#pragma once

#include "sim/assert.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace railsim::sim {

// `Entry` is a copyable struct with a `std::uint32_t id` member; `Before` a strict order on
// entries that never ties two entries of different ids (a sequence number or the id itself
// breaks ties), so that what pops first depends only on the entries, never on the heap's shape,
// and runs repeat. Each id is in the heap at most once; ids need not be dense, but the heap
// keeps a position per id up to the largest it has seen.
//
// Four children per node: half the height of a binary heap, and a node's children share a cache
// line, which suits queues that pop far more than they push.
template <typename Entry, typename Before>
class IndexedHeap {
 public:
  IndexedHeap() = default;

  // Room for ids below `ids` from the start.
  explicit IndexedHeap(std::size_t ids) : position_(ids, kAbsent) {}

  bool empty() const { return heap_.empty(); }

  std::size_t size() const { return heap_.size(); }

  bool contains(std::uint32_t id) const {
    return id < position_.size() && position_[id] != kAbsent;
  }

  // The first entry; the heap must not be empty.
  const Entry& top() const {
    RAILSIM_ASSERT(!heap_.empty(), "top() of an empty heap");
    return heap_.front();
  }

  // Inserts `entry`, or replaces the entry of its id, whose key may move either way.
  void set(const Entry& entry) {
    if (!contains(entry.id)) {
      if (entry.id >= position_.size()) {
        position_.resize(std::size_t{entry.id} + 1, kAbsent);
      }
      const auto index = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back(entry);
      sift_up(index);
      return;
    }
    const std::uint32_t index = position_[entry.id];
    const bool earlier = Before{}(entry, heap_[index]);
    heap_[index] = entry;
    if (earlier) {
      sift_up(index);
    } else {
      sift_down(index);
    }
  }

  // Removes the entry of `id`, which must be in the heap.
  void erase(std::uint32_t id) {
    RAILSIM_ASSERT(contains(id), "erase() of an id not in the heap");
    remove_at(position_[id]);
  }

  // Removes the first entry; the heap must not be empty.
  void pop() {
    RAILSIM_ASSERT(!heap_.empty(), "pop() of an empty heap");
    remove_at(0);
  }

 private:
  static constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();
  static constexpr std::uint32_t kArity = 4;

  void place(std::uint32_t index, const Entry& entry) {
    heap_[index] = entry;
    position_[entry.id] = index;
  }

  void remove_at(std::uint32_t index) {
    position_[heap_[index].id] = kAbsent;
    const auto last = static_cast<std::uint32_t>(heap_.size() - 1);
    if (index == last) {
      heap_.pop_back();
      return;
    }
    const Entry moved = heap_[last];
    heap_.pop_back();
    place(index, moved);
    // The entry moved into the hole may belong above it or below it.
    if (index > 0 && Before{}(moved, heap_[(index - 1) / kArity])) {
      sift_up(index);
    } else {
      sift_down(index);
    }
  }

  void sift_up(std::uint32_t index) {
    const Entry entry = heap_[index];
    while (index > 0) {
      const std::uint32_t parent = (index - 1) / kArity;
      if (!Before{}(entry, heap_[parent])) {
        break;
      }
      place(index, heap_[parent]);
      index = parent;
    }
    place(index, entry);
  }

  void sift_down(std::uint32_t index) {
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
        if (Before{}(heap_[child], heap_[best])) {
          best = child;
        }
      }
      if (!Before{}(heap_[best], entry)) {
        break;
      }
      place(index, heap_[best]);
      index = best;
    }
    place(index, entry);
  }

  std::vector<Entry> heap_;
  std::vector<std::uint32_t> position_;  // by id: its index in heap_, or kAbsent
};

}  // namespace railsim::sim
