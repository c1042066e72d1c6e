// File: tools/probes/unique_id_file.hpp
// How railsim-probe-nccl's ranks agree on NCCL's unique id without MPI: rank 0 writes it to a
// file that every rank sees (a shared file system), atomically (PATH.tmp, then rename), and the
// others poll until the file exists. The file also holds the number of ranks, so a file left by
// a run of another size is refused rather than joined.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <span>
#include <string>

namespace railsim::tools::probes {

// NCCL_UNIQUE_ID_BYTES (nccl.h); the probe checks that its ncclUniqueId has this size.
inline constexpr std::size_t kUniqueIdBytes = 128;

using UniqueIdBytes = std::array<std::byte, kUniqueIdBytes>;

// "railsim-nccl-id/1 nranks=N <256 hex digits>\n".
std::string encode_unique_id(const UniqueIdBytes& id, int nranks);

// The id in `text`; a ProbeFailure when it is malformed or made for another number of ranks.
UniqueIdBytes decode_unique_id(const std::string& text, int nranks, const std::string& path);

// Writes PATH all or nothing (cli_support/output_file.hpp), so that no reader sees a
// half-written file.
void write_unique_id_file(const std::string& path, const UniqueIdBytes& id, int nranks);

// Polls `path` every `interval` until it exists, then decodes it; a ProbeFailure after
// `timeout` without it.
UniqueIdBytes wait_for_unique_id_file(const std::string& path,
                                      int nranks,
                                      std::chrono::milliseconds timeout,
                                      std::chrono::milliseconds interval);

}  // namespace railsim::tools::probes
