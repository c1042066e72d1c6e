// File: tools/probes/verbs_options.hpp
// The options of railsim-probe-verbs, named after perftest's where it has the same option
// (--ib-port, --gid-index, -a, --iters, --tx-depth, --cq-mod, --report_gbits), and their
// checks, which all run before any device is opened.
#pragma once

#include "tools/probes/size_series.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace railsim::tools::probes {

enum class VerbsTest { kWriteBw, kWriteLat, kBoth };

enum class VerbsFormat { kJson, kPerftest };

struct VerbsOptions {
  bool server = false;
  std::string client_host;     // the server to connect to; empty on the server
  std::uint16_t port = 18515;  // TCP port of the out-of-band exchange (perftest's default)
  std::string device;          // "mlx5_0"; empty: the first device found
  int ib_port = 1;             // port of the device, from 1
  int gid_index = -1;          // -1: no GRH (InfiniBand); RoCE needs one (often 3, RoCEv2)
  VerbsTest test = VerbsTest::kBoth;
  SizeSeries bw_sizes{65536, 65536, 2};  // write_bw: perftest's 64 KiB unless -a/-b/-e
  SizeSeries lat_sizes{2, 2, 2};         // write_lat: perftest's 2 B unless -a/-b/-e
  std::int64_t bw_iterations = 5000;     // perftest's defaults, unless --iters
  std::int64_t lat_iterations = 1000;
  int tx_depth = 128;      // write_bw: writes kept outstanding
  int signal_every = 100;  // write_bw: one signalled completion per this many writes
  VerbsFormat format = VerbsFormat::kJson;
  bool report_gbits = false;  // perftest format: bandwidth in Gb/s instead of MB/s
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};  // per out-of-band wait

  bool measures_bw() const { return test != VerbsTest::kWriteLat; }

  bool measures_lat() const { return test != VerbsTest::kWriteBw; }

  // The largest message of the run: the registered buffer's size.
  std::int64_t max_message_bytes() const;

  // What both sides must agree on, as one word for the out-of-band message (QpEndpoint).
  std::string settings_word() const;
};

// The largest size -b/-e accept: the buffer is allocated and registered whole.
inline constexpr std::int64_t kMaxVerbsMessage = std::int64_t{1} << 30;

// The options in `args` (without the program name), or nullopt after printing the help on
// `out`. Bad arguments throw sim::InputError (or Boost's option errors) naming the option.
std::optional<VerbsOptions> parse_verbs_options(const std::vector<std::string>& args,
                                                std::ostream& out);

}  // namespace railsim::tools::probes
