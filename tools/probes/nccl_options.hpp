// File: tools/probes/nccl_options.hpp
// The options of railsim-probe-nccl: nccl-tests' -b -e -f -n -w -d -c, with one process per
// GPU placed by --rank/--nranks and bootstrapped through a unique-id file; and the size rows a
// series gives, as nccl-tests counts them. Everything here is checked before CUDA is touched.
#pragma once

#include "tools/probes/nccl_data.hpp"
#include "tools/probes/size_series.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace railsim::tools::probes {

struct NcclOptions {
  int rank = 0;
  int nranks = 1;
  std::string id_file;        // where rank 0 writes the unique id the others read
  std::optional<int> device;  // local GPU; default rank % the number of GPUs
  NcclOp op = NcclOp::kAllReduce;
  SizeSeries sizes{std::int64_t{32} << 20, std::int64_t{32} << 20, 2};  // nccl-tests' 32M
  int iterations = 20;  // timed calls per size and placement (nccl-tests' -n)
  int warmup = 5;       // untimed calls before them (-w)
  DataType type = DataType::kFloat;
  bool check = true;  // validate each size once before timing (-c)
  std::chrono::milliseconds id_timeout{std::chrono::seconds(120)};
};

// The largest -e: far above any GPU's memory, so a typo fails here and a real size at cudaMalloc.
inline constexpr std::int64_t kMaxNcclBytes = std::int64_t{1} << 40;

// The options in `args` (without the program name), or nullopt after printing the help on `out`.
// Bad arguments throw sim::InputError (or Boost's option errors) naming the option.
std::optional<NcclOptions> parse_nccl_options(const std::vector<std::string>& args,
                                              std::ostream& out);

// One row of the table: its size column (total bytes of the collective, as nccl-tests counts
// it) and count column (elements per rank, CollectiveShape).
struct RowShape {
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;
};

// The rows of a size series: each size rounded down to whole elements (AllGather, ReduceScatter:
// whole elements on every rank), sizes that round to no element or to the previous row
// dropped. Fails (sim::InputError) when no row is left.
std::vector<RowShape> row_shapes(NcclOp op, DataType type, int nranks, const SizeSeries& sizes);

}  // namespace railsim::tools::probes
