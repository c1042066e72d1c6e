// File: models/collective/nvls_plan.hpp
// NvlsPlan: NCCL's NVLS (NVLink SHARP) collectives on one NVSwitch node as data
// (nccl:src/device/all_reduce.h, src/transport/nvls.cc).
//
// The buffer lives in NVSwitch multicast memory backed by every GPU. Each channel carries
// size / channels; per loop every GPU is the head of one piece of it (a chunk, or an n-th of
// what is left), and handles that piece with one NVSwitch operation in one pass of its warps:
//   AllReduce      multimem.ld_reduce: the switch reads the piece from all n GPUs (each GPU's
//                  port towards the switch carries it) and returns the sum to the head; then
//                  multimem.st: the head writes the sum once and the switch multicasts it to
//                  all n GPUs (each port from the switch carries it);
//   ReduceScatter  the ld_reduce half only;   AllGather  the multicast half only.
// So per AllReduce each GPU port carries S (n+1)/n in each direction, against 2 S (n-1)/n for
// a ring: the reduction happens in the switch, not in the GPUs. The GPU itself is one of the n
// the switch reads from and writes to: multicast memory has no local shortcut.
#pragma once

#include "models/collective/collective_types.hpp"
#include "sim/bytes.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace railsim::models {

struct NvlsPlan {
  CollectiveOp op = CollectiveOp::kAllReduce;
  int ranks = 1;
  int channels = 1;
  sim::Bytes size;  // nccl-tests' size: AllGather's output, ReduceScatter's input, else the buffer
  sim::Bytes chunk;

  sim::Bytes channel_bytes(int channel) const;

  // Per loop of channel c, the piece each of the `ranks` heads handles, loop by loop.
  std::vector<sim::Bytes> loop_pieces(int channel) const;

  std::int64_t transfer_count() const;
};

// Throws sim::InputError unless op is AllReduce, AllGather or ReduceScatter, ranks >= 2,
// channels >= 1 and size >= 0.
NvlsPlan make_nvls_plan(CollectiveOp op, sim::Bytes size, int ranks, int channels);

// What one NVSwitch operation moves through one GPU's port.
struct PortLoad {
  int gpu = 0;
  bool to_switch = true;  // the GPU's link up to the NVSwitch, else the one down from it
  sim::Bytes bytes;
};

// The port loads of the operation whose head is `head`, on a piece of `bytes`.
std::vector<PortLoad> nvls_operation(CollectiveOp op, int ranks, int head, sim::Bytes bytes);

// One NVSwitch operation of the plan.
struct NvlsOperation {
  int channel = 0;
  int head = 0;
  int loop = 0;
  sim::Bytes bytes;
  std::optional<std::uint32_t> after;  // the head's previous operation on this channel
};

std::vector<NvlsOperation> nvls_operations(const NvlsPlan& plan);

}  // namespace railsim::models
