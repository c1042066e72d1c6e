// File: models/collective/nvls_tree_time.hpp
// How long one channel of an NVLS Tree AllReduce takes when each of its operations moves at a
// steady pace of its own: what the pipelined execution adds to the bytes its flow groups moved
// (nvls_tree_lowering.hpp), as tree_time.hpp is for Tree.
//
// The recurrence, loop by loop (each loop every head owns one piece). In every node the reduce
// of the loop's pieces (all heads' together, timed by the largest piece) follows the node's
// previous reduce; then, per head, each edge up the node tree sends the piece once it sent the
// previous loop's and holds its node's reduce (switch_delay after it ended) and its children's
// pieces (each edge's delay after it ended); the root holds the sum once it holds those; each
// edge down sends once it sent the previous loop's and its parent holds the result; and in every
// node the store of the loop (timed by the largest piece) follows its previous store and every
// head's result held there. The channel ends switch_delay after its last store.
//
// Its closed form over identical loops. The time of a step in loop L is a longest path in the
// product of the loop's dependency graph and the chain of loops, each step of a loop weighing its
// time and each step of the graph its delay. Over F loops of the same pieces a path follows one
// chain of steps and spends its F - 1 extra loops at the slowest step of it, so the state after F
// loops is, per step, the best over chains ending there of (the chain's times and delays + (F - 1)
// x its slowest time): one pass over the graph, O(heads x nodes) whatever F. NCCL's loops carry a
// chunk per head but the last few (a heads-th of what is left), so the closed form times the
// leading loops that are alike and the recurrence the rest, from the state they leave.
#pragma once

#include "models/collective/tree_plan.hpp"
#include "sim/bytes.hpp"

#include <span>
#include <vector>

namespace railsim::models {

// One channel's paces: per node, the seconds per byte of its reduce and its store (the slower of
// each operation's two halves); per head x nodes + node, those of the edge up from the node to
// its parent and of the edge down to it from its parent, and their delays (unused at the root).
struct NvlsTreePaces {
  std::vector<double> reduce_s_per_byte;
  std::vector<double> store_s_per_byte;
  std::vector<double> up_s_per_byte;
  std::vector<double> down_s_per_byte;
  std::vector<double> up_delay_s;
  std::vector<double> down_delay_s;
  double switch_delay_s = 0.0;  // an operation's hold and its ports' latency
};

// Seconds from the channel's first operation until its last store is held; `pieces` lists each
// loop's pieces, `heads` per loop. Pieces of no bytes take no time, whatever the pace.
double nvls_tree_channel_seconds(const RankTree& tree,
                                 int heads,
                                 std::span<const sim::Bytes> pieces,
                                 const NvlsTreePaces& paces);

}  // namespace railsim::models
