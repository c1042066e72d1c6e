// File: models/collective/pat_plan.hpp
// PatPlan: NCCL's PAT (parallel aggregated trees, NCCL 2.23+) AllGather and ReduceScatter as
// data, independent of the hardware that runs it (nccl:src/include/collectives.h PatAGAlgorithm
// and PatRSAlgorithm, src/enqueue.cc).
//
// PAT moves every rank's portion to (AllGather) or from (ReduceScatter) every other rank over a
// binomial tree of D = ceil(log2 n) dimensions: at dimension d a rank talks to the rank 2^d away,
// so it has D peers where a ring has one, and a small call crosses the network D times where a
// ring crosses it n - 1 times. The trees are "aggregated": at each step a rank sends, in one
// message, every portion it holds for that peer, and the largest steps go to the nearest peers.
//
// AllGather runs the dimensions from the farthest (d = D - 1, one portion per rank) to the
// nearest (d = 0, half the portions): rank r sends to r + 2^d (mod n) its own portion and those it
// received at the farther dimensions that still have a target that way. The portion of source s
// reaches rank s + delta at the dimension of delta's lowest set bit, from s + delta - 2^d, so at
// dimension d every rank sends floor((n - 1 - 2^d) / 2^(d+1)) + 1 portions (n / 2^(d+1) for a
// power of two), n - 1 in all: a ring's bytes. ReduceScatter is the same run backwards: nearest
// dimension first, rank r sending to r - 2^d the partial sums it has reduced so far. NCCL pairs
// r with r xor 2^d over the next power of two; the distances and the bytes per distance are the
// same, and the shift by 2^d serves any rank count with one peer per dimension.
//
// Each channel carries its share of every rank's portion, cut into chunks per loop
// (non_ring_chunking.hpp, pat_chunk); a loop runs every dimension once. A rank's send at one step
// waits for what it received at the earlier steps whose portions it passes on.
#pragma once

#include "models/collective/collective_types.hpp"
#include "models/collective/communicator.hpp"
#include "sim/bytes.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace railsim::models {

struct PatPlan {
  CollectiveOp op = CollectiveOp::kAllGather;  // or kReduceScatter
  Communicator comm;
  int channel_count = 1;
  sim::Bytes size;   // nccl-tests' size: AllGather output, ReduceScatter input
  sim::Bytes chunk;  // of each rank's portion, per channel per loop

  int ranks() const { return comm.ranks(); }

  int channels() const { return channel_count; }

  // Dimensions, which are the steps of a loop: ceil(log2 ranks).
  int steps() const;

  // The dimension of step `step`: farthest first for AllGather, nearest first for ReduceScatter.
  int dimension(int step) const;

  // Whom `rank` sends to at `step`, and who sends to it.
  int peer(int rank, int step) const;
  int sender_to(int rank, int step) const;

  // Portions every rank sends at `step`.
  int portions(int step) const;

  // Whether a rank passes on at `step` some of what it received at `earlier`.
  bool feeds(int earlier, int step) const;

  // The payload channel c carries (the first channels one byte more when it does not divide).
  sim::Bytes channel_bytes(int channel) const;

  // Each rank's portion in each loop of channel c: a chunk, or an n-th of what is left when that
  // is less; one empty loop for no data.
  std::vector<sim::Bytes> loop_portions(int channel) const;

  // How many transfers pat_transfers() lists, without listing them.
  std::int64_t transfer_count() const;
};

// Throws sim::InputError for an operation other than AllGather or ReduceScatter, fewer than two
// ranks, no channel or a negative size.
PatPlan make_pat_plan(CollectiveOp op, sim::Bytes size, const Communicator& comm, int channels);

// One step's message from one rank to its peer in one loop of one channel.
struct PatTransfer {
  int channel = 0;
  int rank = 0;  // the sender
  int step = 0;
  int dst = 0;
  int loop = 0;
  sim::Bytes bytes;  // payload: the step's portions
  // The sender's receives of this loop that it passes on.
  std::vector<std::uint32_t> depends_on;
  // The same connection's transfer of the previous loop.
  std::optional<std::uint32_t> after;
};

// Every transfer, channel by channel, loop by loop, step by step, rank by rank.
std::vector<PatTransfer> pat_transfers(const PatPlan& plan);

}  // namespace railsim::models
