// File: tests/sim/event_queue_test.cpp
// EventQueue: (time, sequence) order, FIFO among equal times, cancel and reschedule.
#include "sim/event_queue.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace railsim::sim {
namespace {

std::vector<int> drain(EventQueue& queue, std::vector<int>& log) {
  while (!queue.empty()) {
    queue.pop().handler();
  }
  return log;
}

TEST(EventQueue, PopsInTimeOrder) {
  EventQueue queue;
  std::vector<int> log;
  queue.push(at(ps(30)), [&] { log.push_back(3); });
  queue.push(at(ps(10)), [&] { log.push_back(1); });
  queue.push(at(ps(20)), [&] { log.push_back(2); });
  EXPECT_EQ(queue.top_time(), at(ps(10)));
  EXPECT_EQ(drain(queue, log), (std::vector<int>{1, 2, 3}));
}

TEST(EventQueue, EqualTimesRunInSchedulingOrder) {
  EventQueue queue;
  std::vector<int> log;
  for (int i = 0; i < 100; ++i) {
    queue.push(at(ps(5)), [&, i] { log.push_back(i); });
  }
  std::vector<int> expected(100);
  for (int i = 0; i < 100; ++i) {
    expected[static_cast<std::size_t>(i)] = i;
  }
  EXPECT_EQ(drain(queue, log), expected);
}

TEST(EventQueue, CancelRemovesOnlyThatEvent) {
  EventQueue queue;
  std::vector<int> log;
  queue.push(at(ps(1)), [&] { log.push_back(1); });
  const EventId two = queue.push(at(ps(2)), [&] { log.push_back(2); });
  queue.push(at(ps(3)), [&] { log.push_back(3); });
  EXPECT_TRUE(queue.cancel(two));
  EXPECT_FALSE(queue.cancel(two));  // Already gone.
  EXPECT_FALSE(queue.pending(two));
  EXPECT_EQ(drain(queue, log), (std::vector<int>{1, 3}));
}

TEST(EventQueue, RescheduleMovesAnEventEitherWay) {
  EventQueue queue;
  std::vector<int> log;
  const EventId a = queue.push(at(ps(10)), [&] { log.push_back(1); });
  const EventId b = queue.push(at(ps(20)), [&] { log.push_back(2); });
  queue.push(at(ps(15)), [&] { log.push_back(3); });
  EXPECT_TRUE(queue.reschedule(a, at(ps(30))));  // later
  EXPECT_TRUE(queue.reschedule(b, at(ps(5))));   // earlier
  EXPECT_EQ(drain(queue, log), (std::vector<int>{2, 3, 1}));
}

TEST(EventQueue, RescheduledEventGoesAfterOthersAtItsNewTime) {
  EventQueue queue;
  std::vector<int> log;
  const EventId first = queue.push(at(ps(1)), [&] { log.push_back(1); });
  queue.push(at(ps(7)), [&] { log.push_back(2); });
  EXPECT_TRUE(queue.reschedule(first, at(ps(7))));
  EXPECT_EQ(drain(queue, log), (std::vector<int>{2, 1}));
}

TEST(EventQueue, HandlesOfRunEventsGoStaleEvenWhenTheirSlotIsReused) {
  EventQueue queue;
  const EventId old = queue.push(at(ps(1)), [] {});
  queue.pop();
  const EventId fresh = queue.push(at(ps(2)), [] {});
  EXPECT_EQ(old.slot, fresh.slot);   // The slot was recycled...
  EXPECT_FALSE(queue.pending(old));  // ...but the old handle does not reach the new event.
  EXPECT_FALSE(queue.cancel(old));
  EXPECT_FALSE(queue.reschedule(old, at(ps(9))));
  EXPECT_TRUE(queue.pending(fresh));
}

TEST(EventQueue, RandomOperationsKeepTheOrderOfASortedReference) {
  // Push, cancel and reschedule at random; the pops must come out as a sort of what is left by
  // (time, last scheduling order).
  std::mt19937_64 rng(7);
  EventQueue queue;

  struct Live {
    EventId id;
    std::int64_t time;
    std::uint64_t order;
    int label;
  };

  std::vector<Live> live;
  std::vector<int> log;
  std::uint64_t order = 0;
  std::uniform_int_distribution<std::int64_t> time(0, 50);
  for (int label = 0; label < 2000; ++label) {
    const int action = static_cast<int>(rng() % 4);
    if (action == 0 && !live.empty()) {
      const std::size_t k = rng() % live.size();
      ASSERT_TRUE(queue.cancel(live[k].id));
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    } else if (action == 1 && !live.empty()) {
      const std::size_t k = rng() % live.size();
      live[k].time = time(rng);
      live[k].order = order++;
      ASSERT_TRUE(queue.reschedule(live[k].id, at(ps(live[k].time))));
    } else {
      const std::int64_t t = time(rng);
      live.push_back(
          {queue.push(at(ps(t)), [&log, label] { log.push_back(label); }), t, order++, label});
    }
  }
  std::sort(live.begin(), live.end(), [](const Live& a, const Live& b) {
    return a.time != b.time ? a.time < b.time : a.order < b.order;
  });
  std::vector<int> expected;
  expected.reserve(live.size());
  for (const Live& e : live) {
    expected.push_back(e.label);
  }
  EXPECT_EQ(drain(queue, log), expected);
}

}  // namespace
}  // namespace railsim::sim
