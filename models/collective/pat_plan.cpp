// File: models/collective/pat_plan.cpp
// PAT's dimensions, peers and portions, and the transfers of its loops.
#include "models/collective/pat_plan.hpp"

#include "models/collective/non_ring_chunking.hpp"
#include "sim/ceil_div.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace railsim::models {
namespace {

using sim::at;

int distance(int dimension) { return 1 << dimension; }

bool gathers(CollectiveOp op) { return op == CollectiveOp::kAllGather; }

}  // namespace

int PatPlan::steps() const { return static_cast<int>(std::bit_width(unsigned(ranks() - 1))); }

int PatPlan::dimension(int step) const { return gathers(op) ? steps() - 1 - step : step; }

int PatPlan::peer(int rank, int step) const {
  const int n = ranks();
  const int shift = gathers(op) ? distance(dimension(step)) : n - distance(dimension(step));
  return (rank + shift) % n;
}

int PatPlan::sender_to(int rank, int step) const {
  const int n = ranks();
  const int shift = gathers(op) ? n - distance(dimension(step)) : distance(dimension(step));
  return (rank + shift) % n;
}

int PatPlan::portions(int step) const {
  // The offsets a sender holds at dimension d have no set bit below d + 1, and the target they
  // reach, 2^d further, is still a rank.
  const int d = dimension(step);
  return (ranks() - 1 - distance(d)) / distance(d + 1) + 1;
}

bool PatPlan::feeds(int earlier, int step) const {
  // The nearest portion received at the earlier dimension lies 2^earlier away; it goes on at
  // this one if 2^step further is still a rank (AllGather), and ReduceScatter mirrors it.
  return earlier < step && distance(dimension(earlier)) + distance(dimension(step)) < ranks();
}

sim::Bytes PatPlan::channel_bytes(int channel) const {
  const std::int64_t n = channels();
  return sim::bytes(size.count / n + (channel < size.count % n ? 1 : 0));
}

std::vector<sim::Bytes> PatPlan::loop_portions(int channel) const {
  const std::int64_t n = ranks();
  std::int64_t left = channel_bytes(channel).count;
  std::vector<sim::Bytes> portions_per_loop;
  do {
    const std::int64_t portion = std::min(chunk.count, sim::ceil_div(left, n));
    portions_per_loop.push_back(sim::bytes(portion));
    left -= std::min(left, n * portion);
  } while (left > 0);
  return portions_per_loop;
}

std::int64_t PatPlan::transfer_count() const {
  std::int64_t loops = 0;
  for (int c = 0; c < channels(); ++c) {
    const std::int64_t portion = (channel_bytes(c).count + ranks() - 1) / ranks();
    loops += std::max<std::int64_t>(1, sim::ceil_div(portion, chunk.count));
  }
  return loops * ranks() * steps();
}

PatPlan make_pat_plan(CollectiveOp op, sim::Bytes size, const Communicator& comm, int channels) {
  if (!is_gather_scatter(op)) {
    throw sim::InputError(
        fmt::format("pat plan: {}, expected all_gather or reduce_scatter", op_name(op)));
  }
  if (comm.ranks() < 2) {
    throw sim::InputError(fmt::format("pat plan: {} rank, expected at least 2", comm.ranks()));
  }
  if (channels < 1) {
    throw sim::InputError(fmt::format("pat plan: {} channels, expected at least 1", channels));
  }
  if (size.count < 0) {
    throw sim::InputError(fmt::format("pat plan: size {} B, expected >= 0", size.count));
  }
  PatPlan plan;
  plan.op = op;
  plan.comm = comm;
  plan.channel_count = channels;
  plan.size = size;
  plan.chunk = pat_chunk(op, size, channels);
  return plan;
}

std::vector<PatTransfer> pat_transfers(const PatPlan& plan) {
  std::vector<PatTransfer> out;
  out.reserve(static_cast<std::size_t>(plan.transfer_count()));
  const int n = plan.ranks();
  const int steps = plan.steps();
  for (int c = 0; c < plan.channels(); ++c) {
    // Per connection (rank x step): its transfer of the latest loop so far.
    std::vector<std::optional<std::uint32_t>> latest(at(n) * at(steps));
    const auto connection = [&](int rank, int step) { return at(rank) * at(steps) + at(step); };
    const std::vector<sim::Bytes> portions = plan.loop_portions(c);
    for (int l = 0; l < static_cast<int>(portions.size()); ++l) {
      for (int s = 0; s < steps; ++s) {
        for (int r = 0; r < n; ++r) {
          PatTransfer t;
          t.channel = c;
          t.rank = r;
          t.step = s;
          t.dst = plan.peer(r, s);
          t.loop = l;
          t.bytes = portions[at(l)] * plan.portions(s);
          for (int earlier = 0; earlier < s; ++earlier) {
            if (plan.feeds(earlier, s)) {
              t.depends_on.push_back(*latest[connection(plan.sender_to(r, earlier), earlier)]);
            }
          }
          std::optional<std::uint32_t>& last = latest[connection(r, s)];
          t.after = last;
          last = static_cast<std::uint32_t>(out.size());
          out.push_back(std::move(t));
        }
      }
    }
  }
  return out;
}

}  // namespace railsim::models
