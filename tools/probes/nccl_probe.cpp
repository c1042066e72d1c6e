// File: tools/probes/nccl_probe.cpp
// railsim-probe-nccl: NCCL collectives over a size series, one process per GPU. Arguments are
// checked first, so --help and bad options need no GPU; then the GPU, the unique-id file and
// the communicator; then the rows; rank 0 prints the table in nccl-tests' layout.
#include "tools/probes/cuda_check.hpp"
#include "tools/probes/nccl_benchmark.hpp"
#include "tools/probes/nccl_options.hpp"
#include "tools/probes/nccl_report.hpp"
#include "tools/probes/probe_run.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <iostream>
#include <nccl.h>
#include <string>
#include <vector>

namespace railsim::tools::probes {
namespace {

int run_nccl_probe(const std::vector<std::string>& args) {
  const std::optional<NcclOptions> parsed = parse_nccl_options(args, std::cout);
  if (!parsed) {
    return 0;
  }
  const NcclOptions& options = *parsed;
  const std::vector<RowShape> shapes =
      row_shapes(options.op, options.type, options.nranks, options.sizes);
  NcclSession session(options);

  NcclRunInfo info;
  info.op = options.op;
  info.type = options.type;
  info.sizes = options.sizes;
  info.iterations = options.iterations;
  info.warmup = options.warmup;
  info.check = options.check;
  check_nccl(ncclGetVersion(&info.nccl_version), "ncclGetVersion");
  info.ranks = session.gather_rank_infos();

  // Row sizes are the collective's total bytes, which bounds each buffer's need.
  const auto largest = static_cast<std::size_t>(
      std::max_element(shapes.begin(), shapes.end(), [](const RowShape& a, const RowShape& b) {
        return a.size_bytes < b.size_bytes;
      })->size_bytes);
  const DeviceBuffer send(largest);
  const DeviceBuffer receive(largest);
  std::vector<NcclRow> rows;
  rows.reserve(shapes.size());
  for (const RowShape& shape : shapes) {
    rows.push_back(session.measure(shape, send, receive));
  }
  if (options.rank == 0) {
    print_nccl_tests(std::cout, info, rows);
  }
  return 0;
}

}  // namespace
}  // namespace railsim::tools::probes

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return railsim::tools::probes::run_probe("railsim-probe-nccl", std::cerr, [&] {
    return railsim::tools::probes::run_nccl_probe(args);
  });
}
