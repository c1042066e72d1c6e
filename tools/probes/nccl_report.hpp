// File: tools/probes/nccl_report.hpp
// What railsim-probe-nccl's rank 0 prints: nccl-tests' header block (program, settings line,
// "Using devices"), its table of out-of-place and in-place results, and the closing lines, in
// the layout calibrate's parse_nccl_tests reads (tests/data/nccl-tests_*.txt).
//
// nccl-tests' conventions: algbw = size / time; busbw = algbw x 2(n-1)/n for AllReduce and
// x (n-1)/n for AllGather and ReduceScatter, whose size is the total bytes across ranks. Times
// in microseconds, bandwidths in GB/s (10^9 bytes per second).
#pragma once

#include "tools/probes/nccl_data.hpp"
#include "tools/probes/rank_info.hpp"
#include "tools/probes/size_series.hpp"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace railsim::tools::probes {

struct NcclPlacementResult {
  double time_us = 0.0;               // mean time of one call
  std::optional<std::int64_t> wrong;  // nullopt: not checked (printed N/A)
};

struct NcclRow {
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;
  NcclPlacementResult out_of_place;
  NcclPlacementResult in_place;
};

struct NcclRunInfo {
  NcclOp op = NcclOp::kAllReduce;
  DataType type = DataType::kFloat;
  SizeSeries sizes;
  int iterations = 0;
  int warmup = 0;
  bool check = true;
  int nccl_version = 0;  // ncclGetVersion's code, 22809 for 2.28.9
  std::vector<RankInfo> ranks;
};

double algbw_gbps(std::int64_t size_bytes, double time_us);
double busbw_factor(NcclOp op, int nranks);

// The header, the rows, "# Out of bounds values" (the #wrong total) and "# Avg bus bandwidth"
// (the mean busbw over every printed result, out-of-place and in-place).
void print_nccl_tests(std::ostream& out, const NcclRunInfo& info, const std::vector<NcclRow>& rows);

}  // namespace railsim::tools::probes
