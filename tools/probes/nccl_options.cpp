// File: tools/probes/nccl_options.cpp
#include "tools/probes/nccl_options.hpp"

#include "sim/input_error.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/cli_support/named_choice.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <utility>

namespace railsim::tools::probes {
namespace {

namespace po = boost::program_options;

constexpr std::string_view kSummary =
    "railsim-probe-nccl: NCCL collectives over a size sweep, one process per GPU, printed as\n"
    "nccl-tests prints them (rank 0 prints).\n\n"
    "usage: railsim-probe-nccl --rank R --nranks N --id-file PATH [options]\n"
    "Start N processes (mpirun, srun, ssh); rank 0 writes NCCL's unique id to PATH, on a\n"
    "file system every rank sees, and the others wait for it.";

constexpr std::array<Choice<NcclOp>, 3> kOps = {{{"all_reduce", NcclOp::kAllReduce},
                                                 {"all_gather", NcclOp::kAllGather},
                                                 {"reduce_scatter", NcclOp::kReduceScatter}}};
constexpr std::array<Choice<DataType>, 4> kTypes = {{{"float", DataType::kFloat},
                                                     {"half", DataType::kHalf},
                                                     {"bfloat16", DataType::kBfloat16},
                                                     {"double", DataType::kDouble}}};

std::int64_t integer(const po::variables_map& vm,
                     const char* name,
                     const char* option,
                     std::int64_t min,
                     std::int64_t max) {
  const auto value = vm[name].as<std::int64_t>();
  if (value < min || value > max) {
    throw sim::InputError(
        fmt::format("{}: expected an integer from {} to {}, got {}", option, min, max, value));
  }
  return value;
}

}  // namespace

std::optional<NcclOptions> parse_nccl_options(const std::vector<std::string>& args,
                                              std::ostream& out) {
  po::options_description options("options");
  options.add_options()("rank", po::value<std::int64_t>(), "this process's rank, 0 to N-1")(
      "nranks", po::value<std::int64_t>(), "number of processes (one GPU each)")(
      "id-file", po::value<std::string>(), "path of the unique-id file, on a shared file system")(
      "device", po::value<std::int64_t>(), "local GPU (rank modulo the number of GPUs)")(
      "op", po::value<std::string>()->default_value("all_reduce"),
      "all_reduce, all_gather or reduce_scatter");
  add_size_options(options);
  options.add_options()("iters,n", po::value<std::int64_t>()->default_value(20),
                        "timed calls per size")(
      "warmup_iters,w", po::value<std::int64_t>()->default_value(5), "untimed calls first")(
      "datatype,d", po::value<std::string>()->default_value("float"),
      "float, half, bfloat16 or double")(
      "check,c", po::value<std::int64_t>()->default_value(1),
      "1: check each size's result once before timing it; 0: do not (#wrong N/A)")(
      "id-timeout", po::value<std::int64_t>()->default_value(120),
      "seconds ranks other than 0 wait for the id file");
  po::variables_map vm;
  if (!parse_command_line(args, options, std::string(kSummary), out, vm)) {
    return std::nullopt;
  }
  for (const char* required : {"rank", "nranks", "id-file"}) {
    if (!vm.count(required)) {
      throw sim::InputError(fmt::format("--{} is required (see --help)", required));
    }
  }
  constexpr std::int64_t kMaxRanks = 1 << 20;
  NcclOptions parsed;
  parsed.nranks = static_cast<int>(integer(vm, "nranks", "--nranks", 1, kMaxRanks));
  parsed.rank = static_cast<int>(integer(vm, "rank", "--rank", 0, parsed.nranks - 1));
  parsed.id_file = vm["id-file"].as<std::string>();
  if (parsed.id_file.empty()) {
    throw sim::InputError("--id-file: expected a path, got ''");
  }
  if (vm.count("device")) {
    parsed.device = static_cast<int>(integer(vm, "device", "--device", 0, 1 << 16));
  }
  parsed.op = parse_named("--op", vm["op"].as<std::string>(), kOps);
  parsed.type = parse_named("-d", vm["datatype"].as<std::string>(), kTypes);
  if (vm.count("stepfactor") && !vm.count("minbytes") && !vm.count("maxbytes")) {
    throw sim::InputError("-f: a step factor needs -b and -e");
  }
  parsed.sizes = sizes_from_options(vm, parsed.sizes, kMaxNcclBytes);
  constexpr std::int64_t kMaxIterations = 1'000'000;
  parsed.iterations = static_cast<int>(integer(vm, "iters", "-n", 1, kMaxIterations));
  parsed.warmup = static_cast<int>(integer(vm, "warmup_iters", "-w", 0, kMaxIterations));
  parsed.check = integer(vm, "check", "-c", 0, 1) == 1;
  parsed.id_timeout = std::chrono::seconds(integer(vm, "id-timeout", "--id-timeout", 1, 86400));
  // The rows exist, checked now rather than after NCCL has started.
  row_shapes(parsed.op, parsed.type, parsed.nranks, parsed.sizes);
  return parsed;
}

std::vector<RowShape> row_shapes(NcclOp op, DataType type, int nranks, const SizeSeries& sizes) {
  // AllReduce's count is the whole vector; the others' is one rank's share of `size` bytes.
  const std::int64_t unit = element_bytes(type) * (op == NcclOp::kAllReduce ? 1 : nranks);
  std::vector<RowShape> rows;
  for (const std::int64_t size : sizes.sizes()) {
    const std::int64_t count = size / unit;
    if (count == 0 || (!rows.empty() && rows.back().count == count)) {
      continue;
    }
    rows.push_back(RowShape{count * unit, count});
  }
  if (rows.empty()) {
    throw sim::InputError(fmt::format(
        "-e: {} bytes is less than one {} element{} ({} bytes), so there is nothing to measure",
        sizes.max_bytes, type_name(type), op == NcclOp::kAllReduce ? "" : " on every rank", unit));
  }
  return rows;
}

}  // namespace railsim::tools::probes
