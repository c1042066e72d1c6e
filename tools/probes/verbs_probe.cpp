// File: tools/probes/verbs_probe.cpp
// railsim-probe-verbs: RDMA write bandwidth and latency between a server and a client over one
// RC queue pair. Arguments are checked before any device is opened; then the device, then the
// TCP exchange of endpoints, then the tests size by size, both sides meeting at a barrier
// before and after each size. The client prints; the server only serves.
#include "tools/probes/latency_stats.hpp"
#include "tools/probes/probe_run.hpp"
#include "tools/probes/qp_endpoint.hpp"
#include "tools/probes/tcp_channel.hpp"
#include "tools/probes/verbs_benchmark.hpp"
#include "tools/probes/verbs_connection.hpp"
#include "tools/probes/verbs_options.hpp"
#include "tools/probes/verbs_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>
#include <string>
#include <vector>

namespace railsim::tools::probes {
namespace {

TcpChannel open_channel(const VerbsOptions& options) {
  if (!options.server) {
    return TcpChannel::connect(options.client_host, options.port, options.timeout);
  }
  TcpListener listener(options.port);
  fmt::print(std::cerr, "railsim-probe-verbs: waiting for the client on TCP port {}\n",
             listener.port());
  return listener.accept(options.timeout);
}

int run_verbs_probe(const std::vector<std::string>& args) {
  const std::optional<VerbsOptions> parsed = parse_verbs_options(args, std::cout);
  if (!parsed) {
    return 0;
  }
  const VerbsOptions& options = *parsed;
  VerbsConnection connection(options, static_cast<std::size_t>(options.max_message_bytes()));
  TcpChannel channel = open_channel(options);

  QpEndpoint local = connection.local_endpoint();
  local.settings = options.settings_word();
  channel.send_line(encode_endpoint(local));
  const QpEndpoint remote = decode_endpoint(channel.receive_line());
  if (remote.settings != local.settings) {
    throw ProbeFailure(fmt::format(
        "the server and the client were started with different settings: here {}, there {}",
        local.settings, remote.settings));
  }
  connection.connect(remote);
  channel.barrier("connected");

  VerbsReport report;
  report.info = connection.run_info(local, remote);
  if (options.measures_bw()) {
    for (const std::int64_t size : options.bw_sizes.sizes()) {
      channel.barrier(fmt::format("write_bw {}", size));
      if (!options.server) {
        report.write_bw.push_back(measure_write_bw(connection, remote, size, options.bw_iterations,
                                                   options.tx_depth, options.signal_every,
                                                   options.timeout));
      }
      channel.barrier(fmt::format("write_bw {} done", size));
    }
  }
  if (options.measures_lat()) {
    for (const std::int64_t size : options.lat_sizes.sizes()) {
      clear_receive(connection, size);
      channel.barrier(fmt::format("write_lat {}", size));
      if (options.server) {
        serve_write_lat(connection, remote, size, options.lat_iterations, options.timeout);
      } else {
        report.write_lat.push_back(LatencyRow{
            size, summarize_latency(measure_write_lat(connection, remote, size,
                                                      options.lat_iterations, options.timeout))});
      }
      channel.barrier(fmt::format("write_lat {} done", size));
    }
  }
  if (options.server) {
    fmt::print(std::cerr, "railsim-probe-verbs: done; the client prints the results\n");
    return 0;
  }
  if (options.format == VerbsFormat::kPerftest) {
    print_perftest(std::cout, report, options.report_gbits);
  } else {
    fmt::print(std::cout, "{}", verbs_json(report));
  }
  return 0;
}

}  // namespace
}  // namespace railsim::tools::probes

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return railsim::tools::probes::run_probe("railsim-probe-verbs", std::cerr, [&] {
    return railsim::tools::probes::run_verbs_probe(args);
  });
}
