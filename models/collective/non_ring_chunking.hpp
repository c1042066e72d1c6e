// File: models/collective/non_ring_chunking.hpp
// How NCCL cuts tree and NVLS collectives into chunks (nccl:src/enqueue.cc
// calcCollChunking): unlike rings, they take chunkSteps = sliceSteps = 1, so a chunk is one
// buffer step moved as one transfer (Simple 512 KiB, LL 32 KiB of payload, LL128 576,000 B of
// payload), and then shrink the chunk for small messages so that enough chunks are in flight to
// fill the pipeline.
#pragma once

#include "models/collective/chunking.hpp"
#include "models/collective/collective_types.hpp"
#include "sim/bytes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace railsim::models {

// NCCL_NVLS_CHUNKSIZE's default (nccl:src/transport/nvls.cc).
inline constexpr sim::Bytes kNvlsChunk = sim::kib(128);

// One buffer step's payload: the chunk of every non-ring algorithm before shrinking.
constexpr sim::Bytes one_step_chunk(Protocol protocol) {
  // chunking.hpp's ring chunks are 4 steps for Simple and 1 step for LL and LL128.
  const Chunking ring = ring_chunking(CollectiveOp::kBroadcast, protocol);
  return ring.chunk;
}

// Tree AllReduce's chunk for a call of `bytes` on `channels` channels. Simple and LL keep one
// step. LL128 halves it while the call has fewer than nsteps x 64 / ppn chunks per channel (down
// to 128 KiB of wire bytes), then while it has fewer than nsteps x 16 / ppn (down to 32 KiB),
// with nsteps = 1 + log2(nodes) + 0.1 ppn, as nccl:src/enqueue.cc's calcCollChunking (Tree LL128
// branch) has it.
inline sim::Bytes tree_chunk(
    Protocol protocol, sim::Bytes bytes, int channels, int nodes, int gpus_per_node) {
  if (protocol != Protocol::kLl128) {
    return one_step_chunk(protocol);
  }
  // NCCL halves the step's wire size (614,400 B of 128-byte lines, 120 B of payload each).
  constexpr std::int64_t kLineBytes = 128;
  constexpr std::int64_t kLinePayload = 120;
  std::int64_t wire = one_step_chunk(protocol).count / kLinePayload * kLineBytes;
  const double ppn = gpus_per_node;
  const double nsteps = 1.0 + std::floor(std::log2(nodes)) + 0.1 * ppn;
  // Whole chunks per channel, as NCCL's integer division counts them.
  const auto chunks_per_channel = [&] {
    const std::int64_t chunks = bytes.count / (std::int64_t{channels} * wire);
    return static_cast<double>(chunks);
  };
  while (chunks_per_channel() < nsteps * 64.0 / ppn && wire > 131'072) {
    wire /= 2;
  }
  while (chunks_per_channel() < nsteps * 16.0 / ppn && wire > 32'768) {
    wire /= 2;
  }
  return sim::bytes(wire / kLineBytes * kLinePayload);
}

// NVLS's chunk (nccl:src/enqueue.cc): NCCL_NVLS_CHUNKSIZE, cut to 64 / 32 / 16 KiB when the call
// is under 64 / 8 / 2 x concurrent operations x the chunk, the concurrent operations being
// channels x NVLS heads.
constexpr sim::Bytes nvls_chunk(sim::Bytes bytes, int channels, int heads) {
  const std::int64_t concurrent = std::int64_t{channels} * heads;
  std::int64_t chunk = kNvlsChunk.count;
  if (bytes.count < 64 * concurrent * chunk && chunk > 65'536) {
    chunk = 65'536;
  }
  if (bytes.count < 8 * concurrent * chunk && chunk > 32'768) {
    chunk = 32'768;
  }
  if (bytes.count < 2 * concurrent * chunk && chunk > 16'384) {
    chunk = 16'384;
  }
  return sim::bytes(chunk);
}

// PAT's chunk of each rank's portion (nccl:src/enqueue.cc calcCollChunking, PAT branches): one
// Simple buffer step, halved down to 64 KiB while channels x the chunk x 32 (AllGather) or x 16
// (ReduceScatter) exceeds the call's bytes, so that a small call still makes several loops.
constexpr sim::Bytes pat_chunk(CollectiveOp op, sim::Bytes bytes, int channels) {
  const std::int64_t loops = op == CollectiveOp::kAllGather ? 32 : 16;
  std::int64_t chunk = one_step_chunk(Protocol::kSimple).count;
  while (chunk * channels * loops > bytes.count && chunk > 65'536) {
    chunk /= 2;
  }
  return sim::bytes(chunk);
}

// NVLS Tree AllReduce's chunk (nccl:src/enqueue.cc calcCollChunking, NVLS_TREE branch):
// NCCL_NVLS_CHUNKSIZE, at most 64 KiB from 4 nodes up (NCCL_NVLSTREE_MAX_CHUNKSIZE unset), then
// cut to 256 / 128 / 64 / 32 KiB when the call is under 32 / 16 / 4 / 1 x concurrent operations x
// the chunk, the concurrent operations being channels x NVLS heads. With the 128 KiB default only
// the last two cuts can apply: on 16 channels x 8 heads, 64 KiB below 64 MiB and 32 KiB below
// 8 MiB (2-3 nodes), 32 KiB below 8 MiB (4 nodes and more).
constexpr sim::Bytes nvls_tree_chunk(sim::Bytes bytes, int channels, int heads, int nodes) {
  const std::int64_t concurrent = std::int64_t{channels} * heads;
  std::int64_t chunk = kNvlsChunk.count;
  if (nodes >= 4) {
    chunk = std::min<std::int64_t>(chunk, 65'536);
  }
  const auto cut = [&](std::int64_t times, std::int64_t to) {
    if (bytes.count < times * concurrent * chunk && chunk > to) {
      chunk = to;
    }
  };
  cut(32, 262'144);
  cut(16, 131'072);
  cut(4, 65'536);
  cut(1, 32'768);
  return sim::bytes(chunk);
}

// CollNet's chunk (nccl:src/enqueue.cc, CollNet branches of the chunking): Direct starts from one
// Simple step (512 KiB), Chain from 256 KiB, and each halves while the call has fewer whole
// chunks per concurrent stream (channels x heads for Direct, channels for Chain) than
// depth x 64 (down to 128 KiB), then depth x 8 (down to 64 KiB), then depth x 8 for Direct or
// depth for Chain (down to 32 KiB). Depth: Direct 2 when a head has peers in its node, else 1;
// Chain the GPUs per node, its chain's length.
constexpr sim::Bytes collnet_chunk(
    bool direct, sim::Bytes bytes, int channels, int heads, int gpus_per_node) {
  const std::int64_t streams = std::int64_t{channels} * (direct ? heads : 1);
  const std::int64_t depth = direct ? (gpus_per_node > 1 ? 2 : 1) : gpus_per_node;
  std::int64_t chunk = direct ? one_step_chunk(Protocol::kSimple).count : 262'144;
  const auto fewer_than = [&](std::int64_t target) {
    return bytes.count / (streams * chunk) < target;
  };
  while (fewer_than(depth * 64) && chunk > 131'072) {
    chunk /= 2;
  }
  while (fewer_than(depth * 8) && chunk > 65'536) {
    chunk /= 2;
  }
  while (fewer_than(direct ? depth * 8 : depth) && chunk > 32'768) {
    chunk /= 2;
  }
  return sim::bytes(chunk);
}

}  // namespace railsim::models
