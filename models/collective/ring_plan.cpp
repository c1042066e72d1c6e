// File: models/collective/ring_plan.cpp
// Cutting a ring collective into loops, pieces and slices, and listing its transfers.
#include "models/collective/ring_plan.hpp"

#include "sim/ceil_div.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace railsim::models {
namespace {

using sim::at;
using sim::ceil_div;

}  // namespace

sim::Bytes slice_of(sim::Bytes piece, int slices, int k) {
  const std::int64_t size = ceil_div(piece.count, slices);
  return sim::bytes(std::clamp<std::int64_t>(piece.count - k * size, 0, size));
}

int RingPlan::steps() const { return op == CollectiveOp::kAllReduce ? 2 * (ranks - 1) : ranks - 1; }

int RingPlan::connections() const {
  if (ranks == 1) {
    return 0;  // one rank moves nothing
  }
  return is_ring_chain(op) ? ranks - 1 : ranks;
}

sim::Bytes RingPlan::channel_bytes(int channel) const {
  const std::int64_t n = channels();
  return sim::bytes(size.count / n + (channel < size.count % n ? 1 : 0));
}

std::vector<sim::Bytes> RingPlan::loop_pieces(int channel) const {
  // Per loop a rank's piece is one chunk, or an n-th of what is left when that is less; pieces
  // past the end of the data are empty but their steps still run (NCCL's kernels still hand
  // the slots on), and a channel with no data still makes one loop.
  const std::int64_t parts = is_ring_chain(op) ? 1 : ranks;
  std::int64_t left = channel_bytes(channel).count;
  std::vector<sim::Bytes> pieces;
  do {
    const std::int64_t piece = std::min(chunking.chunk.count, ceil_div(left, parts));
    for (std::int64_t p = 0; p < parts; ++p) {
      pieces.push_back(sim::bytes(std::clamp<std::int64_t>(left - p * piece, 0, piece)));
    }
    left -= std::min(left, parts * piece);
  } while (left > 0);
  return pieces;
}

std::int64_t RingPlan::loops(int channel) const {
  const std::int64_t parts = is_ring_chain(op) ? 1 : ranks;
  return std::max<std::int64_t>(
      1, ceil_div(channel_bytes(channel).count, parts * chunking.chunk.count));
}

std::int64_t RingPlan::transfer_count() const {
  std::int64_t loops_total = 0;
  for (int c = 0; c < channels(); ++c) {
    loops_total += loops(c);
  }
  const std::int64_t per_loop =
      is_ring_chain(op) ? std::int64_t{connections()} : std::int64_t{connections()} * steps();
  return loops_total * per_loop * chunking.slices;
}

RingPlan make_ring_plan(CollectiveOp op,
                        Protocol protocol,
                        sim::Bytes size,
                        std::vector<std::vector<int>> rings) {
  if (rings.empty()) {
    throw sim::InputError("ring plan: no channel");
  }
  if (size.count < 0) {
    throw sim::InputError(fmt::format("ring plan: size {} B, expected >= 0", size.count));
  }
  const int ranks = static_cast<int>(rings.front().size());
  for (const auto& ring : rings) {
    std::vector<int> sorted = ring;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (sorted[i] != static_cast<int>(i) || static_cast<int>(ring.size()) != ranks) {
        throw sim::InputError(
            fmt::format("ring plan: every ring must hold ranks 0-{} once each", ranks - 1));
      }
    }
  }
  if (ranks < 1) {
    throw sim::InputError("ring plan: no rank");
  }
  return RingPlan{op, ranks, std::move(rings), size, ring_chunking(op, protocol)};
}

std::vector<Transfer> transfers(const RingPlan& plan) {
  std::vector<Transfer> out;
  out.reserve(static_cast<std::size_t>(plan.transfer_count()));
  const int n = plan.ranks;
  for (int c = 0; c < plan.channels(); ++c) {
    const std::vector<int>& ring = plan.rings[at(c)];
    // last[p]: the latest transfer of connection p; sent[k][p] and received[k][p]: what position
    // p sent of slice k at this step and at the previous one, which position p + 1 forwards.
    std::vector<std::optional<std::uint32_t>> last(at(n));
    std::vector<std::vector<std::optional<std::uint32_t>>> sent(
        at(plan.chunking.slices), std::vector<std::optional<std::uint32_t>>(at(n)));
    auto received = sent;
    int step = -1;
    for_each_slice(plan, c, [&](int /*loop*/, int s, int k, int p, sim::Bytes bytes) {
      if (s != step) {
        step = s;
        received = sent;
        if (s == 0) {
          for (auto& row : received) {
            std::fill(row.begin(), row.end(), std::nullopt);
          }
        }
      }
      Transfer t;
      t.channel = c;
      t.connection = p;
      t.src = ring[at(p)];
      t.dst = ring[at((p + 1) % n)];
      t.step = s;
      t.slice = k;
      t.bytes = bytes;
      t.depends_on = received[at(k)][at((p - 1 + n) % n)];
      t.after = last[at(p)];
      last[at(p)] = sent[at(k)][at(p)] = static_cast<std::uint32_t>(out.size());
      out.push_back(t);
    });
  }
  return out;
}

RingPipeline pipeline(const RingPlan& plan, int channel) {
  const bool chain = is_ring_chain(plan.op);
  const int n = plan.ranks;
  const int parts = chain ? 1 : n;
  const std::vector<sim::Bytes> pieces = plan.loop_pieces(channel);
  RingPipeline pipe;
  pipe.loops = static_cast<int>(pieces.size()) / parts;
  pipe.steps = plan.steps();
  pipe.active_steps = plan.active_steps();
  pipe.slices = plan.chunking.slices;
  pipe.connection_bytes.assign(at(plan.connections()), sim::Bytes{});
  sim::Bytes loop_total;
  for (int l = 0; l < pipe.loops; ++l) {
    loop_total = {};
    for (int q = 0; q < parts; ++q) {
      loop_total += pieces[at(l * parts + q)];
    }
    if (chain) {
      for (sim::Bytes& bytes : pipe.connection_bytes) {
        bytes += loop_total;
      }
      continue;
    }
    // Over a loop's steps, position p sends piece_sent(p, s) for every step s: all n pieces
    // steps / n times over, plus those of its first m = steps % n steps. That window of m pieces
    // slides by one piece from one position to the next: O(n) per loop instead of O(n m).
    const int m = pipe.steps % n;
    const auto piece = [&](int p, int s) { return pieces[at(l * parts + plan.piece_sent(p, s))]; };
    sim::Bytes window;
    for (int s = 0; s < m; ++s) {
      window += piece(0, s);
    }
    for (int p = 0; p < n; ++p) {
      if (p > 0) {
        // Gains what p sends at step 0, loses what p - 1 sent at step m - 1.
        window = window + piece(p, 0) - piece(p, m);
      }
      pipe.connection_bytes[at(p)] += loop_total * (pipe.steps / n) + window;
    }
  }
  const std::int64_t last_piece = pieces[at((pipe.loops - 1) * parts)].count;
  pipe.last_loop_slice = sim::bytes(ceil_div(last_piece, pipe.slices));
  return pipe;
}

}  // namespace railsim::models
