// File: tools/probes/verbs_options.cpp
#include "tools/probes/verbs_options.hpp"

#include "sim/input_error.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/cli_support/named_choice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

namespace railsim::tools::probes {
namespace {

namespace po = boost::program_options;

constexpr std::string_view kSummary =
    "railsim-probe-verbs: RDMA write bandwidth and latency between two hosts over one RC queue\n"
    "pair (libibverbs), like perftest's ib_write_bw and ib_write_lat.\n\n"
    "usage: railsim-probe-verbs --server [options]            (on one host)\n"
    "       railsim-probe-verbs --client SERVER [options]     (on the other, same options)\n"
    "The client measures and prints; the server serves the queue pair and the latency echo.";

// perftest's -a: 2 B to 8 MiB by powers of two.
constexpr SizeSeries kAllSizes{2, std::int64_t{1} << 23, 2};

template <typename T>
T at_least(const po::variables_map& vm, const char* name, T fallback, T min, T max) {
  if (!vm.count(name)) {
    return fallback;
  }
  const auto value = vm[name].as<std::int64_t>();
  if (value < static_cast<std::int64_t>(min) || value > static_cast<std::int64_t>(max)) {
    throw sim::InputError(
        fmt::format("--{}: expected an integer from {} to {}, got {}", name, min, max, value));
  }
  return static_cast<T>(value);
}

constexpr std::array<Choice<VerbsTest>, 3> kTests = {{{"write_bw", VerbsTest::kWriteBw},
                                                      {"write_lat", VerbsTest::kWriteLat},
                                                      {"both", VerbsTest::kBoth}}};
constexpr std::array<Choice<VerbsFormat>, 2> kFormats = {
    {{"json", VerbsFormat::kJson}, {"perftest", VerbsFormat::kPerftest}}};

}  // namespace

std::int64_t VerbsOptions::max_message_bytes() const {
  std::int64_t bytes = 0;
  if (measures_bw()) {
    bytes = std::max(bytes, bw_sizes.max_bytes);
  }
  if (measures_lat()) {
    bytes = std::max(bytes, lat_sizes.max_bytes);
  }
  return bytes;
}

std::string VerbsOptions::settings_word() const {
  const std::string_view test_name = kTests[static_cast<std::size_t>(test)].first;
  return fmt::format("test={},bw={}..{}x{},lat={}..{}x{},iters={}/{},tx_depth={},cq_mod={}",
                     test_name, bw_sizes.min_bytes, bw_sizes.max_bytes, bw_sizes.factor,
                     lat_sizes.min_bytes, lat_sizes.max_bytes, lat_sizes.factor, bw_iterations,
                     lat_iterations, tx_depth, signal_every);
}

std::optional<VerbsOptions> parse_verbs_options(const std::vector<std::string>& args,
                                                std::ostream& out) {
  po::options_description options("options");
  options.add_options()("server", "wait for the client")(
      "client", po::value<std::string>(), "connect to this server (host name or address)")(
      "port", po::value<std::int64_t>(), "TCP port of the out-of-band exchange (18515)")(
      "device", po::value<std::string>(), "RDMA device, such as mlx5_0 (the first one)")(
      "ib-port", po::value<std::int64_t>(), "port of the device (1)")(
      "gid-index", po::value<std::int64_t>(), "GID index, needed on RoCE (none: InfiniBand)")(
      "all,a", "sizes 2 B to 8 MiB by powers of two");
  add_size_options(options);
  options.add_options()("iters,n", po::value<std::int64_t>(),
                        "iterations per size (5000 for write_bw, 1000 for write_lat)")(
      "tx-depth", po::value<std::int64_t>(), "write_bw: writes kept outstanding (128)")(
      "cq-mod", po::value<std::int64_t>(),
      "write_bw: one signalled completion per this many writes (100, at most --tx-depth)")(
      "test", po::value<std::string>()->default_value("both"), "write_bw, write_lat or both")(
      "format", po::value<std::string>()->default_value("json"), "json or perftest")(
      "report_gbits", "perftest format: bandwidth in Gb/s, not MB/s")(
      "timeout", po::value<std::int64_t>(), "seconds to wait for the peer at each step (120)");
  po::variables_map vm;
  if (!parse_command_line(args, options, std::string(kSummary), out, vm)) {
    return std::nullopt;
  }

  VerbsOptions parsed;
  parsed.server = vm.count("server") > 0;
  if (vm.count("client")) {
    parsed.client_host = vm["client"].as<std::string>();
  }
  if (parsed.server == !parsed.client_host.empty()) {
    throw sim::InputError("expected exactly one of --server and --client HOST");
  }
  parsed.port = at_least<std::uint16_t>(vm, "port", parsed.port, 1, 65535);
  if (vm.count("device")) {
    parsed.device = vm["device"].as<std::string>();
    if (parsed.device.empty()) {
      throw sim::InputError("--device: expected a device name such as mlx5_0, got ''");
    }
  }
  parsed.ib_port = at_least<int>(vm, "ib-port", parsed.ib_port, 1, 255);
  parsed.gid_index = at_least<int>(vm, "gid-index", parsed.gid_index, 0, 65535);
  parsed.test = parse_named("--test", vm["test"].as<std::string>(), kTests);
  parsed.format = parse_named("--format", vm["format"].as<std::string>(), kFormats);
  parsed.report_gbits = vm.count("report_gbits") > 0;

  const bool all = vm.count("all") > 0;
  if (all && (vm.count("minbytes") || vm.count("maxbytes"))) {
    throw sim::InputError("-a: give either -a or -b/-e, not both");
  }
  if (all) {
    parsed.bw_sizes = kAllSizes;
    parsed.lat_sizes = kAllSizes;
  }
  if (vm.count("stepfactor") && !vm.count("minbytes") && !vm.count("maxbytes") && !all) {
    throw sim::InputError("-f: a step factor needs -b and -e");
  }
  parsed.bw_sizes = sizes_from_options(vm, parsed.bw_sizes, kMaxVerbsMessage);
  parsed.lat_sizes = sizes_from_options(vm, parsed.lat_sizes, kMaxVerbsMessage);

  constexpr std::int64_t kMaxIterations = 1'000'000'000;
  if (vm.count("iters")) {
    parsed.bw_iterations = at_least<std::int64_t>(vm, "iters", 0, 1, kMaxIterations);
    parsed.lat_iterations = parsed.bw_iterations;
  }
  // Queue pairs of current NICs take up to 8K or 32K work requests; more is refused anyway.
  parsed.tx_depth = at_least<int>(vm, "tx-depth", parsed.tx_depth, 1, 8192);
  parsed.signal_every = std::min(parsed.signal_every, parsed.tx_depth);
  parsed.signal_every = at_least<int>(vm, "cq-mod", parsed.signal_every, 1, parsed.tx_depth);
  parsed.timeout = std::chrono::seconds(at_least<std::int64_t>(vm, "timeout", 120, 1, 86400));
  return parsed;
}

}  // namespace railsim::tools::probes
