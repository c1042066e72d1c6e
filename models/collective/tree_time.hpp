// File: models/collective/tree_time.hpp
// How long one channel of a tree plan takes when each of its edges moves at a steady pace of its
// own: what the pipelined execution adds to the bytes its flow groups moved (tree_lowering.hpp),
// as pipeline_time.hpp is for rings.
//
// The recurrence. Each edge sends the channel's chunks in order; chunk k may start on an edge once
// the edge has sent chunk k - 1 and its inputs hold chunk k: up to a parent, every child's chunk
// sent up; down from a parent, the parent's chunk sent down (at the root's children, every root
// child's chunk sent up: the root's reduce). An edge sends a chunk in bytes x seconds_per_byte and
// the receiver holds it delay (hop latency plus path latency) after its last byte left. A
// protocol that streams (LL, LL128) forwards a chunk as it arrives: the next edge may start it
// delay after the input started it, and holds it no sooner than the input held it, plus delay.
//
// Its closed form. The times are longest paths in the product of the edges' dependency graph and
// the chunks' chain, each (edge, chunk) weighing the chunk's bytes x the edge's seconds per byte
// and each step from an edge to the next its delay. With every chunk but the last of `full` bytes
// and the last of `last`, a path follows one chain of edges from a leaf's edge up to the root and
// down to a leaf's, and moves through the full chunks at one edge e (the slowest it can pick) and
// to the last chunk at an edge g no earlier than e:
//   held  = sum of (full tau_i + d_i) up to g + (K - 2) full tau_e + sum of (last tau_i + d_i)
//           from g on,
//   streamed: sum of every d_i + (K - 1) full tau_e + last tau_g,
// tau_i the edge's seconds per byte and d_i its delay, maximised over chains, e and g: one pass
// down the dependency graph (the best prefix ending at each edge, with e chosen in it) and one
// back up (the longest tail from each edge), O(edges) whatever the chunk count. Exact: the
// recurrence's own maximum, which tests/models/collective/tree_time_test.cpp checks step by step.
#pragma once

#include "models/collective/tree_plan.hpp"
#include "sim/index.hpp"

#include <cstdint>
#include <vector>

namespace railsim::models {

// Per rank, for the edge up to its parent and the one down from it.
struct EdgeValues {
  std::vector<double> up;
  std::vector<double> down;

  explicit EdgeValues(int ranks);

  double& of(int rank, bool is_up) { return is_up ? up[sim::at(rank)] : down[sim::at(rank)]; }

  double of(int rank, bool is_up) const { return is_up ? up[sim::at(rank)] : down[sim::at(rank)]; }
};

// How a channel's bytes are cut (TreePlan::loop_chunks): `count` chunks, at least one, all of
// `full_bytes` but the last, of `last_bytes`.
struct TreeChunks {
  std::int64_t count = 1;
  double full_bytes = 0.0;
  double last_bytes = 0.0;
};

TreeChunks tree_chunks(const TreePlan& plan, int channel);

// Seconds from the channel's first send until its last chunk is held.
double tree_channel_seconds(const RankTree& tree,
                            const TreeChunks& chunks,
                            const EdgeValues& seconds_per_byte,
                            const EdgeValues& delay,
                            bool streams);

}  // namespace railsim::models
