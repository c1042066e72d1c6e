// File: sim/input_file.hpp
// The one way railsim reads an input file: whole, and only a regular file of at most
// kMaxInputFileBytes, so that /dev/zero, a FIFO nobody writes to or a disk image given by
// mistake is one clear error in a millisecond, never a hang or an exhausted machine. A pipe
// (`<(grep ... log)`) is refused with the rest: save the output to a file and give that.
#pragma once

#include <cstdint>
#include <string>

namespace railsim::sim {

// 256 MiB: ten times an nccl-tests log with NCCL_DEBUG=INFO from 1,024 ranks; the readers take
// a few times a file's size in memory.
inline constexpr std::int64_t kMaxInputFileBytes = std::int64_t{256} << 20;

// The bytes of the file at `path`; empty with `problem` set to why it cannot be read ("No such
// file or directory", "not a regular file but a FIFO; save ...", "300 MiB, more than ...") so
// that each reader reports it in its own voice (a JSON file's, a log's).
std::string read_input_file(const std::string& path, std::string& problem);

}  // namespace railsim::sim
