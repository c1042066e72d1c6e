// File: models/collective/ring_plan.hpp
// RingPlan: a ring collective as data, independent of the hardware that will run it: which rank
// sends which bytes to which, in what order, after what, tested without the engine.
//
// Each channel is one ring over all ranks and carries size / channels of the payload (the first
// channels one byte more when it does not divide). Per loop, each rank's piece of a channel is
// at most one chunk (chunking.hpp), and each step of the ring moves every piece one rank further,
// cut into slices:
//   AllReduce      2(n-1) steps: n-1 of reduce-scatter, then n-1 of all-gather
//   ReduceScatter  n-1 steps;   AllGather  n-1 steps
//   Broadcast      the whole loop's data flows from ring position 0 down a chain of n-1 hops
//   Reduce         the same chain, on a ring that starts after the root and ends at it
//                  (collective_run rotates the layout)
// At step s, ring position p sends piece (p - s) mod n, the one it received at step s-1. So every
// connection of an AllReduce carries 2(n-1)/n of the channel's bytes, and AllGather's and
// ReduceScatter's (n-1)/n: nccl-tests' busbw factors.
//
// Two readings of one plan: transfers() lists every slice transfer with its dependencies, for
// chunk-accurate execution; pipeline() sums what each connection carries, with the loop, step
// and slice counts, for pipelined execution.
#pragma once

#include "models/collective/chunking.hpp"
#include "models/collective/collective_types.hpp"
#include "sim/bytes.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace railsim::models {

struct RingPlan {
  CollectiveOp op = CollectiveOp::kAllReduce;
  int ranks = 1;
  std::vector<std::vector<int>> rings;  // per channel: every rank once, in ring order
  sim::Bytes size;                      // nccl-tests' size: AG output, RS input, else the buffer
  Chunking chunking;

  int channels() const { return static_cast<int>(rings.size()); }

  // Steps one piece takes around the ring: 2(n-1), n-1, or n-1 hops for a chain.
  int steps() const;

  // Connections (sending positions) of a channel: n, or n-1 for a chain (Broadcast, Reduce).
  int connections() const;

  // Steps of one loop in which a connection sends: all of them, or one for a chain.
  int active_steps() const { return is_ring_chain(op) ? 1 : steps(); }

  // The piece of a loop that ring position p sends at step s: p - s (mod n), the one it
  // received at step s - 1. A chain moves the loop's one piece.
  int piece_sent(int position, int step) const {
    return is_ring_chain(op) ? 0 : ((position - step) % ranks + ranks) % ranks;
  }

  // The payload channel c carries.
  sim::Bytes channel_bytes(int channel) const;

  // Per-rank piece sizes of each loop of channel c (a chain's loop has one piece).
  std::vector<sim::Bytes> loop_pieces(int channel) const;

  // Loops channel c makes: its bytes over a loop's worth of full chunks, at least one.
  std::int64_t loops(int channel) const;

  // How many transfers transfers() lists, without listing them.
  std::int64_t transfer_count() const;
};

// Throws sim::InputError unless every ring holds each of `ranks` ranks once, there is at least
// one channel and the size is not negative.
RingPlan make_ring_plan(CollectiveOp op,
                        Protocol protocol,
                        sim::Bytes size,
                        std::vector<std::vector<int>> rings);

// One slice moving over one connection of a ring.
struct Transfer {
  int channel = 0;
  int connection = 0;  // the sender's ring position
  int src = 0;         // ranks
  int dst = 0;
  int step = 0;   // the step of its piece; a hop latency separates consecutive steps
  int slice = 0;  // of its piece
  sim::Bytes bytes;
  // The transfer that brought this slice's data to the sender (the previous step, one rank
  // back): it must have been delivered first.
  std::optional<std::uint32_t> depends_on;
  // The previous transfer of the same connection: a connection sends one slice at a time.
  std::optional<std::uint32_t> after;
};

// Every slice transfer of the plan, channel by channel, each in the order its connection sends.
std::vector<Transfer> transfers(const RingPlan& plan);

// Slice k of a piece cut into `slices`: ceil-sized slices first, whatever is left last.
sim::Bytes slice_of(sim::Bytes piece, int slices, int k);

// Calls visit(loop, step, slice, position, bytes) for every slice transfer of `channel`, in the
// order transfers() lists them: loop by loop, step by step, slice by slice, then ring position.
// The transfer at step s > 0 forwards what position - 1 sent of the same slice at step s - 1
// of the same loop; the first step of a loop forwards nothing.
template <typename Visit>
void for_each_slice(const RingPlan& plan, int channel, Visit&& visit) {
  const int n = plan.ranks;
  const int steps = plan.steps();
  const int slices = plan.chunking.slices;
  const bool chain = is_ring_chain(plan.op);
  const int parts = chain ? 1 : n;
  const std::vector<sim::Bytes> pieces = plan.loop_pieces(channel);
  const int loops = static_cast<int>(pieces.size()) / parts;
  // Every slice is visited once per step: size them once, piece by piece.
  const auto per_piece = static_cast<std::size_t>(slices);
  std::vector<sim::Bytes> sliced(pieces.size() * per_piece);
  for (std::size_t i = 0; i < sliced.size(); ++i) {
    sliced[i] = slice_of(pieces[i / per_piece], slices, static_cast<int>(i % per_piece));
  }
  for (int l = 0; l < loops; ++l) {
    const std::size_t loop_first = static_cast<std::size_t>(l) * static_cast<std::size_t>(parts);
    for (int s = 0; s < steps; ++s) {
      // A chain: step s is position s's one send. Position p + 1 sends the piece
      // after position p's.
      const int first_piece = plan.piece_sent(chain ? s : 0, s);
      for (int k = 0; k < slices; ++k) {
        int piece = first_piece;
        for (int p = chain ? s : 0; p < (chain ? s + 1 : n); ++p) {
          visit(l, s, k, p,
                sliced[(loop_first + static_cast<std::size_t>(piece)) * per_piece +
                       static_cast<std::size_t>(k)]);
          if (!chain && ++piece == n) {
            piece = 0;
          }
        }
      }
    }
  }
}

// What one channel's pipeline carries, for pipelined execution.
struct RingPipeline {
  std::vector<sim::Bytes> connection_bytes;  // payload per connection, in ring order
  int loops = 1;
  int steps = 1;               // per loop, along one piece's chain
  int active_steps = 1;        // per loop, per connection
  int slices = 1;              // per piece
  sim::Bytes last_loop_slice;  // the largest slice of the last loop
};

RingPipeline pipeline(const RingPlan& plan, int channel);

}  // namespace railsim::models
