// File: tools/probes/rank_info.hpp
// RankInfo: what nccl-tests' "Using devices" lines say about each rank (process, host, GPU,
// bus id, model). Each rank fills its own; rank 0 learns the others' through one AllGather of
// fixed-size records, so the table's header names every rank without another channel.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>

namespace railsim::tools::probes {

struct RankInfo {
  int rank = 0;
  std::int64_t pid = 0;
  std::string host;
  int device = 0;
  std::string bus_id;  // "0000:1b:00", as nccl-tests prints it inside the brackets
  std::string model;   // "NVIDIA H100 80GB HBM3"

  friend bool operator==(const RankInfo&, const RankInfo&) = default;
};

inline constexpr std::size_t kRankInfoBytes = 256;

// A tab-separated line, zero-padded to kRankInfoBytes; a host or model too long for it is cut
// (the model first), and tabs or newlines in them become spaces.
std::array<std::byte, kRankInfoBytes> encode_rank_info(const RankInfo& info);

// The record back; a ProbeFailure when it is not one encode_rank_info wrote.
RankInfo decode_rank_info(std::span<const std::byte> record);

// "#  Rank  0 Group  0 Pid 4180122 on cnode3-002 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3"
void print_rank_line(std::ostream& out, const RankInfo& info);

}  // namespace railsim::tools::probes
