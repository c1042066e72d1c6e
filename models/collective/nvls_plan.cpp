// File: models/collective/nvls_plan.cpp
// Cutting an NVLS collective into pieces per head and the port loads of each operation.
#include "models/collective/nvls_plan.hpp"

#include "models/collective/non_ring_chunking.hpp"
#include "sim/ceil_div.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace railsim::models {
namespace {

using sim::at;

}  // namespace

sim::Bytes NvlsPlan::channel_bytes(int channel) const {
  const std::int64_t n = channels;
  return sim::bytes(size.count / n + (channel < size.count % n ? 1 : 0));
}

std::vector<sim::Bytes> NvlsPlan::loop_pieces(int channel) const {
  // As ring loops: a piece per head of a chunk, or an n-th of what is left when that is less.
  std::int64_t left = channel_bytes(channel).count;
  std::vector<sim::Bytes> pieces;
  do {
    const std::int64_t piece = std::min(chunk.count, sim::ceil_div(left, ranks));
    for (int h = 0; h < ranks; ++h) {
      pieces.push_back(sim::bytes(std::clamp<std::int64_t>(left - h * piece, 0, piece)));
    }
    left -= std::min(left, ranks * piece);
  } while (left > 0);
  return pieces;
}

std::int64_t NvlsPlan::transfer_count() const {
  std::int64_t count = 0;
  for (int c = 0; c < channels; ++c) {
    const std::int64_t loop = std::int64_t{ranks} * chunk.count;
    count += std::max<std::int64_t>(1, sim::ceil_div(channel_bytes(c).count, loop)) * ranks;
  }
  return count;
}

NvlsPlan make_nvls_plan(CollectiveOp op, sim::Bytes size, int ranks, int channels) {
  if (is_ring_chain(op)) {
    throw sim::InputError(
        fmt::format("nvls runs all_reduce, all_gather and reduce_scatter, not {}", op_name(op)));
  }
  if (ranks < 2) {
    throw sim::InputError(fmt::format("nvls plan: {} ranks, expected at least 2", ranks));
  }
  if (channels < 1) {
    throw sim::InputError(fmt::format("nvls plan: {} channels, expected at least 1", channels));
  }
  if (size.count < 0) {
    throw sim::InputError(fmt::format("nvls plan: size {} B, expected >= 0", size.count));
  }
  // On one node every GPU is an NVLS head (NCCL's NVLS graph has one channel per GPU there).
  return NvlsPlan{op, ranks, channels, size, nvls_chunk(size, channels, ranks)};
}

std::vector<PortLoad> nvls_operation(CollectiveOp op, int ranks, int head, sim::Bytes bytes) {
  std::vector<PortLoad> loads;
  loads.reserve(2 * at(ranks) + 2);
  if (op != CollectiveOp::kAllGather) {
    for (int g = 0; g < ranks; ++g) {
      loads.push_back({g, true, bytes});  // the switch reads every GPU's copy
    }
    loads.push_back({head, false, bytes});  // and returns the sum to the head
  }
  if (op != CollectiveOp::kReduceScatter) {
    loads.push_back({head, true, bytes});  // the head stores the piece once
    for (int g = 0; g < ranks; ++g) {
      loads.push_back({g, false, bytes});  // and the switch writes it to every GPU
    }
  }
  return loads;
}

std::vector<NvlsOperation> nvls_operations(const NvlsPlan& plan) {
  std::vector<NvlsOperation> out;
  out.reserve(static_cast<std::size_t>(plan.transfer_count()));
  for (int c = 0; c < plan.channels; ++c) {
    const std::vector<sim::Bytes> pieces = plan.loop_pieces(c);
    std::vector<std::optional<std::uint32_t>> last(at(plan.ranks));
    const int loops = static_cast<int>(pieces.size()) / plan.ranks;
    for (int l = 0; l < loops; ++l) {
      for (int h = 0; h < plan.ranks; ++h) {
        out.push_back({c, h, l, pieces[at(l * plan.ranks + h)], last[at(h)]});
        last[at(h)] = static_cast<std::uint32_t>(out.size() - 1);
      }
    }
  }
  return out;
}

}  // namespace railsim::models
