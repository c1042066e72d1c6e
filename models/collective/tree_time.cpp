// File: models/collective/tree_time.cpp
// The tree pipeline's closed form: two passes over a channel's edges (see the header).
#include "models/collective/tree_time.hpp"

#include "sim/ceil_div.hpp"
#include "sim/index.hpp"

#include <algorithm>
#include <limits>

namespace railsim::models {

using sim::at;

EdgeValues::EdgeValues(int ranks) : up(at(ranks), 0.0), down(at(ranks), 0.0) {}

TreeChunks tree_chunks(const TreePlan& plan, int channel) {
  const std::int64_t bytes = plan.channel_bytes(channel).count;
  TreeChunks chunks;
  chunks.count = std::max<std::int64_t>(1, sim::ceil_div(bytes, plan.chunk.count));
  chunks.full_bytes = chunks.count > 1 ? static_cast<double>(plan.chunk.count) : 0.0;
  chunks.last_bytes = static_cast<double>(bytes - (chunks.count - 1) * plan.chunk.count);
  return chunks;
}

double tree_channel_seconds(const RankTree& tree,
                            const TreeChunks& chunks,
                            const EdgeValues& seconds_per_byte,
                            const EdgeValues& delay,
                            bool streams) {
  const auto ranks = static_cast<int>(tree.parent.size());
  const double full = chunks.full_bytes;
  const double last = chunks.last_bytes;
  // Chunks a path moves through at its chosen edge besides the one every edge of it sends.
  const auto extra = static_cast<double>(streams ? chunks.count - 1 : chunks.count - 2);
  // Down the dependency graph, per edge: `chain`, the longest path to its start through the full
  // chunks' first one (streamed: its delays alone); `best`, the longest through every full chunk,
  // moving through them at the slowest edge so far, to this edge's send of the last full one.
  EdgeValues chain(ranks);
  EdgeValues best(ranks);
  const auto visit = [&](int rank, bool up, auto&& for_each_input) {
    double into_chain = 0.0;
    double into_best = -std::numeric_limits<double>::infinity();
    for_each_input([&](int from, bool from_up) {
      into_chain = std::max(into_chain, chain.of(from, from_up) + delay.of(from, from_up));
      into_best = std::max(into_best, best.of(from, from_up) + delay.of(from, from_up));
    });
    const double tau = full * seconds_per_byte.of(rank, up);
    const double own = streams ? 0.0 : tau;
    chain.of(rank, up) = own + into_chain;
    best.of(rank, up) = own + std::max(extra * tau + into_chain, into_best);
  };
  const auto root_children_up = [&](auto&& input) {
    for (const int child : tree.children[at(tree.root)]) {
      input(child, true);
    }
  };
  for (const int rank : tree.reduce_order) {
    if (rank != tree.root) {
      visit(rank, true, [&](auto&& input) {
        for (const int child : tree.children[at(rank)]) {
          input(child, true);
        }
      });
    }
  }
  for (auto it = tree.reduce_order.rbegin(); it != tree.reduce_order.rend(); ++it) {
    const int rank = *it;
    const int parent = tree.parent[at(rank)];
    if (rank == tree.root) {
      continue;
    }
    if (parent == tree.root) {
      visit(rank, false, root_children_up);
    } else {
      visit(rank, false, [&](auto&& input) { input(parent, false); });
    }
  }
  // Back up it, per edge: the longest tail from this edge's send of the last chunk to the end
  // (streamed: the delays alone, the last chunk's time counted once at the switch).
  EdgeValues tail(ranks);
  const auto own_tail = [&](int rank, bool up) {
    return (streams ? 0.0 : last * seconds_per_byte.of(rank, up)) + delay.of(rank, up);
  };
  double root_tail = 0.0;  // the longest tail from a root child's edge down
  for (const int rank : tree.reduce_order) {
    if (rank == tree.root) {
      continue;
    }
    double after = 0.0;
    for (const int child : tree.children[at(rank)]) {
      after = std::max(after, tail.of(child, false));
    }
    tail.of(rank, false) = own_tail(rank, false) + after;
    if (tree.parent[at(rank)] == tree.root) {
      root_tail = std::max(root_tail, tail.of(rank, false));
    }
  }
  double done = 0.0;
  for (auto it = tree.reduce_order.rbegin(); it != tree.reduce_order.rend(); ++it) {
    const int rank = *it;
    if (rank == tree.root) {
      continue;
    }
    const int parent = tree.parent[at(rank)];
    tail.of(rank, true) =
        own_tail(rank, true) + (parent == tree.root ? root_tail : tail.of(parent, true));
    for (const bool up : {true, false}) {
      const double switch_s = streams ? last * seconds_per_byte.of(rank, up) : 0.0;
      done = std::max(done, best.of(rank, up) + switch_s + tail.of(rank, up));
    }
  }
  return done;
}

}  // namespace railsim::models
