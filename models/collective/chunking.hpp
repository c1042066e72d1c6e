// File: models/collective/chunking.hpp
// How NCCL cuts a ring collective's buffer into pieces that move step by step
// (nccl:src/include/collectives.h, src/enqueue.cc, src/init.cc).
//
// A connection has NCCL_STEPS = 8 buffer slots of buffer / 8 bytes each. Per loop, each rank's
// piece of a channel is at most one chunk (chunk_steps slots); each step of the ring moves that
// piece in slices of slice_steps slots. Simple (NCCL_BUFFSIZE 4 MiB): 512 KiB steps, rings of
// AllReduce / AllGather / ReduceScatter take 4-step chunks (2 MiB) in 2-step slices, Broadcast and
// Reduce 1-step chunks and slices. LL: 64 KiB steps of 16-byte lines, half of them payload (32
// KiB); LL128: 614,400-byte steps of 128-byte lines, 120 of each payload (576,000 B); both move a
// chunk of one step as one slice.
#pragma once

#include "models/collective/collective_types.hpp"
#include "sim/bytes.hpp"

namespace railsim::models {

inline constexpr int kNcclSteps = 8;

struct Chunking {
  sim::Bytes chunk;  // payload per rank piece per loop
  int slices = 1;    // slices per chunk, each a separate transfer
};

constexpr Chunking ring_chunking(CollectiveOp op, Protocol protocol) {
  switch (protocol) {
    case Protocol::kLl:
      return {sim::kib(32), 1};
    case Protocol::kLl128:
      return {sim::bytes(576'000), 1};
    case Protocol::kSimple:
      break;
  }
  const sim::Bytes step = sim::kib(512);
  return is_ring_chain(op) ? Chunking{step, 1} : Chunking{step * 4, 2};
}

}  // namespace railsim::models
