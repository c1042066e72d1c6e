// File: tests/models/collective/tree_time_test.cpp
// The tree pipeline's closed form against a timeline worked by hand, and against the recurrence
// it solves, stepped chunk by chunk and edge by edge, on arbitrary trees, paces, delays and chunk
// counts (rapidcheck).
#include "models/collective/tree_time.hpp"

#include "tests/models/collective/tree_of.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace railsim::models {
namespace {

using sim::at;
using testing::tree_of;

// The recurrence of tree_time.hpp, one chunk at a time over every edge: per edge, when its
// latest chunk left (`end`), when that chunk's first byte can be forwarded (`opened`, streamed
// only) and when its last byte is held (`held`).
double stepped_seconds(const RankTree& tree,
                       const TreeChunks& chunks,
                       const EdgeValues& seconds_per_byte,
                       const EdgeValues& delay,
                       bool streams) {
  const auto ranks = static_cast<int>(tree.parent.size());
  EdgeValues end(ranks);
  EdgeValues opened(ranks);
  EdgeValues held(ranks);
  double done = 0.0;
  const auto send = [&](int rank, bool up, double input_opened, double input_held, double bytes) {
    const double start = std::max(end.of(rank, up), streams ? input_opened : input_held);
    end.of(rank, up) = start + bytes * seconds_per_byte.of(rank, up);
    opened.of(rank, up) = start + delay.of(rank, up);
    held.of(rank, up) =
        (streams ? std::max(end.of(rank, up), input_held) : end.of(rank, up)) + delay.of(rank, up);
    done = std::max(done, held.of(rank, up));
  };
  const auto children_up = [&](int rank, const EdgeValues& at_edge) {
    double latest = 0.0;
    for (const int child : tree.children[at(rank)]) {
      latest = std::max(latest, at_edge.of(child, true));
    }
    return latest;
  };
  for (std::int64_t k = 0; k < chunks.count; ++k) {
    const double bytes = k + 1 < chunks.count ? chunks.full_bytes : chunks.last_bytes;
    for (const int rank : tree.reduce_order) {
      if (rank != tree.root) {
        send(rank, true, children_up(rank, opened), children_up(rank, held), bytes);
      }
    }
    for (auto it = tree.reduce_order.rbegin(); it != tree.reduce_order.rend(); ++it) {
      const int rank = *it;
      if (rank == tree.root) {
        continue;
      }
      const int parent = tree.parent[at(rank)];
      if (parent == tree.root) {
        send(rank, false, children_up(parent, opened), children_up(parent, held), bytes);
      } else {
        send(rank, false, opened.of(parent, false), held.of(parent, false), bytes);
      }
    }
  }
  return done;
}

TEST(TreeTime, ChainWorkedByHand) {
  // Ranks 0 <- 1 <- 2 (0 the root): edges 2 up, 1 up, 1 down, 2 down. Three chunks of 1 MB and a
  // last of 0.5 MB; edge 1 (both ways) takes 2 us per MB, edge 2 1 us per MB; every delay 0.1 us.
  // Store and forward, the longest path: the first chunk over 2 up, 1 up and 1 down (1 + 2 + 2
  // us), the other two full chunks at edge 1's 2 us (4 us), the last chunk over 1 down and 2 down
  // (1 + 0.5 us) and the four delays (0.4 us): 10.9 us. Stepped by hand, edge 2 down sends the
  // last chunk at max(10.3, 10.3) = 10.3 us, held 10.8 + 0.1.
  const RankTree tree = tree_of({-1, 0, 1});
  const double us_per_mb = 1e-6 / 1e6;
  EdgeValues pace(3);
  EdgeValues delay(3);
  pace.of(1, true) = pace.of(1, false) = 2 * us_per_mb;
  pace.of(2, true) = pace.of(2, false) = us_per_mb;
  for (const int r : {1, 2}) {
    delay.of(r, true) = delay.of(r, false) = 0.1e-6;
  }
  const TreeChunks chunks{4, 1e6, 0.5e6};
  EXPECT_NEAR(tree_channel_seconds(tree, chunks, pace, delay, false), 10.9e-6, 1e-15);
  // Streamed: every delay once (0.4 us), the full chunks at the slowest edge (3 x 2 us) and the
  // last chunk there too (1 us): 7.4 us.
  EXPECT_NEAR(tree_channel_seconds(tree, chunks, pace, delay, true), 7.4e-6, 1e-15);
}

RC_GTEST_PROP(TreeTimeProperty, ClosedFormIsTheSteppedRecurrence, ()) {
  const int ranks = *rc::gen::inRange(2, 12);
  Parents parent(at(ranks), -1);
  for (int r = 1; r < ranks; ++r) {
    parent[at(r)] = *rc::gen::inRange(0, r);  // any earlier rank: every shape of tree
  }
  const RankTree tree = tree_of(parent);
  EdgeValues pace(ranks);
  EdgeValues delay(ranks);
  for (int r = 1; r < ranks; ++r) {
    for (const bool up : {true, false}) {
      pace.of(r, up) = *rc::gen::inRange(0, 50) * 1e-9;
      delay.of(r, up) = *rc::gen::inRange(0, 50) * 1e-7;
    }
  }
  TreeChunks chunks;
  chunks.count = *rc::gen::inRange<std::int64_t>(1, 7);
  chunks.full_bytes = chunks.count > 1 ? 1000.0 * *rc::gen::inRange(1, 100) : 0.0;
  chunks.last_bytes =
      *rc::gen::inRange(0, 100) * (chunks.count > 1 ? chunks.full_bytes / 100.0 : 1000.0);
  const bool streams = *rc::gen::arbitrary<bool>();
  const double stepped = stepped_seconds(tree, chunks, pace, delay, streams);
  const double closed = tree_channel_seconds(tree, chunks, pace, delay, streams);
  RC_ASSERT(std::abs(closed - stepped) <= 1e-9 * std::max(1.0, stepped));
}

}  // namespace
}  // namespace railsim::models
