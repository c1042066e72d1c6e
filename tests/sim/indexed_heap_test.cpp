// File: tests/sim/indexed_heap_test.cpp
// IndexedHeap: pops in the entries' order, re-keys either way, erases by id, and after random
// sets, erases and pops agrees with a sorted reference.
#include "sim/indexed_heap.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

namespace railsim::sim {
namespace {

// Keyed by time, ties to the lower id, as the slice sharing keys its connections.
struct Timed {
  double time = 0.0;
  std::uint32_t id = 0;
};

struct Earlier {
  bool operator()(const Timed& a, const Timed& b) const {
    return a.time < b.time || (a.time == b.time && a.id < b.id);
  }
};

using Heap = IndexedHeap<Timed, Earlier>;

std::vector<std::uint32_t> pop_all(Heap& heap) {
  std::vector<std::uint32_t> ids;
  while (!heap.empty()) {
    ids.push_back(heap.top().id);
    heap.pop();
  }
  return ids;
}

TEST(IndexedHeap, PopsInKeyOrderWithTiesToTheLowerId) {
  Heap heap;
  heap.set({3.0, 0});
  heap.set({1.0, 4});
  heap.set({2.0, 2});
  heap.set({1.0, 1});
  EXPECT_EQ(heap.size(), 4U);
  EXPECT_EQ(heap.top().id, 1U);
  EXPECT_EQ(pop_all(heap), (std::vector<std::uint32_t>{1, 4, 2, 0}));
}

TEST(IndexedHeap, SettingAnIdAgainMovesItsEntryEitherWay) {
  Heap heap(3);
  heap.set({1.0, 0});
  heap.set({2.0, 1});
  heap.set({3.0, 2});
  heap.set({4.0, 0});  // later
  heap.set({0.5, 2});  // earlier
  EXPECT_EQ(heap.size(), 3U);
  EXPECT_EQ(pop_all(heap), (std::vector<std::uint32_t>{2, 1, 0}));
}

TEST(IndexedHeap, EraseRemovesOnlyThatId) {
  Heap heap;
  for (std::uint32_t id = 0; id < 6; ++id) {
    heap.set({static_cast<double>(id), id});
  }
  heap.erase(0);
  heap.erase(3);
  EXPECT_FALSE(heap.contains(0));
  EXPECT_FALSE(heap.contains(3));
  EXPECT_TRUE(heap.contains(4));
  EXPECT_FALSE(heap.contains(99));  // never seen
  EXPECT_EQ(pop_all(heap), (std::vector<std::uint32_t>{1, 2, 4, 5}));
}

TEST(IndexedHeap, RandomOperationsKeepTheOrderOfASortedReference) {
  // Set, erase and pop at random over 64 ids; each pop must be the least of what a map of the
  // live entries holds, and what is left must drain in sorted order.
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> time(0, 20);
  Heap heap;
  std::map<std::uint32_t, double> live;
  const auto least = [&] {
    return std::min_element(live.begin(), live.end(),
                            [](const auto& a, const auto& b) {
                              return Earlier{}({a.second, a.first}, {b.second, b.first});
                            })
        ->first;
  };
  for (int step = 0; step < 5000; ++step) {
    const auto id = static_cast<std::uint32_t>(rng() % 64);
    const int action = static_cast<int>(rng() % 4);
    if (action == 0 && !live.empty()) {
      ASSERT_EQ(heap.top().id, least());
      live.erase(heap.top().id);
      heap.pop();
    } else if (action == 1 && live.count(id) > 0) {
      heap.erase(id);
      live.erase(id);
    } else {
      const auto t = static_cast<double>(time(rng));
      heap.set({t, id});
      live[id] = t;
    }
    ASSERT_EQ(heap.size(), live.size());
  }
  std::vector<std::uint32_t> expected;
  while (!live.empty()) {
    expected.push_back(least());
    live.erase(expected.back());
  }
  EXPECT_EQ(pop_all(heap), expected);
}

}  // namespace
}  // namespace railsim::sim
