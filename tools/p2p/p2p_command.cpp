// File: tools/p2p/p2p_command.cpp
// `railsim p2p`: RDMA writes between two nodes over the model, printed in the columns of
// perftest's ib_write_bw (--test write_bw: one queue pair keeps messages in flight back to back)
// or ib_write_lat (--test write_lat: a ping-pong of one message at a time), so a real log and
// the prediction sit side by side. Without a GPU the buffers are in the host memory of the NIC's
// socket (as without --use_cuda), with NODE:GPU in that GPU.
#include "models/scenario/quantity.hpp"
#include "models/scenario/system_file.hpp"
#include "models/system/rdma_bench.hpp"
#include "models/system/system.hpp"
#include "sim/input_error.hpp"
#include "sim/simulator.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/cli_support/output_format.hpp"
#include "tools/command.hpp"
#include "tools/profile_option.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;

constexpr std::array<Choice<OutputFormat>, 2> kFormats = {
    {{"perftest", OutputFormat::kText}, {"json", OutputFormat::kJson}}};

constexpr const char* kRule =
    "---------------------------------------------------------------------------------------\n";

// "3" (host memory of node 3) or "3:5" (GPU 5 of node 3).
models::Endpoint parse_endpoint(const std::string& text, const char* option) {
  models::Endpoint endpoint;
  const auto colon = text.find(':');
  try {
    std::size_t used = 0;
    endpoint.node = std::stoi(text.substr(0, colon), &used);
    if (used != (colon == std::string::npos ? text.size() : colon)) {
      throw std::invalid_argument(text);
    }
    if (colon != std::string::npos) {
      endpoint.gpu = std::stoi(text.substr(colon + 1), &used);
      if (used != text.size() - colon - 1) {
        throw std::invalid_argument(text);
      }
    }
  } catch (const std::logic_error&) {
    throw sim::InputError(
        fmt::format("--{}: expected NODE or NODE:GPU such as 0 or 1:3, got '{}'", option, text));
  }
  return endpoint;
}

struct LatencyRow {
  std::int64_t size = 0;
  std::int64_t iterations = 0;
  double latency_us = 0.0;  // every statistic of a deterministic model: t_min = t_avg = ...
};

// "n0.host", "n1.gpu3": one word, as perftest's header values are (railsim parse reads them so).
std::string buffer_text(models::Endpoint end) {
  return end.gpu == models::kHostMemory ? fmt::format("n{}.host", end.node)
                                        : fmt::format("n{}.gpu{}", end.node, end.gpu);
}

// perftest's header block, as far as the model knows its settings. Every value is one word, as
// perftest's own are, so that railsim parse and railsim check read this output back.
void print_banner(std::ostream& out,
                  const char* title,
                  int tx_depth,
                  const std::string& nic_name,
                  const std::string& system_name,
                  models::Endpoint from,
                  models::Endpoint to) {
  std::string system = system_name;
  std::replace_if(
      system.begin(), system.end(), [](char c) { return c == ' ' || c == '\t'; }, '_');
  fmt::print(out, "{}                    {}\n", kRule, title);
  fmt::print(out, " Device          : {}\t\tModel          : railsim\n", nic_name);
  fmt::print(out, " Number of qps   : 1\t\tTransport type : IB\n");
  fmt::print(out, " Connection type : RC\t\tUsing SRQ      : OFF\n");
  fmt::print(out, " TX depth        : {}\n", tx_depth);
  fmt::print(out, " Mtu             : 4096[B]\n");
  fmt::print(out, " Link type       : IB\n");
  fmt::print(out, " System          : {}\n", system);
  fmt::print(out, " Buffers         : {}->{}\n", buffer_text(from), buffer_text(to));
}

void print_bandwidth_table(std::ostream& out,
                           const std::vector<models::RdmaStreamResult>& rows,
                           bool gbits) {
  const auto in_unit = [gbits](double bytes_per_s) {
    return gbits ? bytes_per_s * 8e-9 : bytes_per_s / (1024.0 * 1024.0);
  };
  const char* unit = gbits ? "Gb/sec" : "MB/sec";
  fmt::print(out, "{} #bytes     #iterations    BW peak[{}]    BW average[{}]   MsgRate[Mpps]\n",
             kRule, unit, unit);
  for (const models::RdmaStreamResult& r : rows) {
    fmt::print(out, " {:<7}    {:<7}          {:<7.2f}            {:<7.2f}\t\t   {:<7.6f}\n",
               r.size, r.iterations, in_unit(r.peak_bytes_per_s), in_unit(r.average_bytes_per_s),
               r.average_bytes_per_s / static_cast<double>(r.size) * 1e-6);
  }
  fmt::print(out, "{}", kRule);
}

// ib_write_lat's columns and its format (perftest_parameters.h RESULT_FMT_LAT, REPORT_FMT_LAT).
void print_latency_table(std::ostream& out, const std::vector<LatencyRow>& rows) {
  fmt::print(out,
             "{} #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
             "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n",
             kRule);
  for (const LatencyRow& r : rows) {
    fmt::print(out,
               " {:<7} {}          {:<7.2f}        {:<7.2f}      {:<7.2f}  \t       {:<7.2f}     "
               "\t{:<7.2f}\t\t{:<7.2f} \t\t{:<7.2f}\n",
               r.size, r.iterations, r.latency_us, r.latency_us, r.latency_us, r.latency_us, 0.0,
               r.latency_us, r.latency_us);
  }
  fmt::print(out, "{}", kRule);
}

nlohmann::ordered_json latency_json(const LatencyRow& r) {
  const double t = r.latency_us;
  return {{"size_bytes", r.size}, {"iterations", r.iterations},
          {"t_min_us", t},        {"t_max_us", t},
          {"t_typical_us", t},    {"t_avg_us", t},
          {"t_stdev_us", 0.0},    {"p99_us", t},
          {"p99_9_us", t},        {"lat_us", t}};
}

}  // namespace

int run_p2p(const std::vector<std::string>& args, std::ostream& out) {
  std::string system_name;
  std::string from_text;
  std::string to_text;
  std::string test;
  std::string format;
  std::string size_text;
  std::string profile_path;
  int nodes = 0;
  int nic_option = -1;
  std::int64_t iterations = 0;
  po::options_description options(
      "railsim p2p --system PRESET|FILE [--from NODE[:GPU]] [--to NODE[:GPU]] [-s SIZE | -a] "
      "[--test write_bw|write_lat]");
  options.add_options()("system", po::value(&system_name)->required(),
                        "a node preset (2 nodes) or a scenario file (.json)")(
      "nodes", po::value(&nodes), "override the number of nodes")(
      "from", po::value(&from_text)->default_value("0"), "sender: NODE (host memory) or NODE:GPU")(
      "to", po::value(&to_text)->default_value("1"), "receiver: NODE or NODE:GPU")(
      "nic", po::value(&nic_option), "compute NIC index (default: the GPU's nearest, else 0)")(
      "size,s", po::value(&size_text),
      "message size, e.g. 65536 or 8M (default 65536 for write_bw, 2 for write_lat)")(
      "all,a", "sweep sizes 2 B to 8 MiB in powers of 2, as perftest's -a")(
      "iters,n", po::value(&iterations),
      "messages per size (default 5000 for write_bw, 1000 for write_lat)")(
      "report_gbits", "bandwidth in Gb/sec instead of MB/sec (2^20 B)")(
      "test", po::value(&test)->default_value("write_bw"),
      "write_bw: a stream, as ib_write_bw; write_lat: a ping-pong, as ib_write_lat, half the "
      "round trip. The model is deterministic: every write_lat statistic (t_min, t_max, "
      "t_typical, t_avg, the percentiles) is the one latency, and t_stdev is 0")(
      "format", po::value(&format)->default_value("perftest"), "perftest or json")(
      "profile", po::value(&profile_path),
      "a calibration profile (railsim calibrate -o): its parameters, with a one-sigma band");
  po::variables_map vm;
  if (!parse_command_line(args, options,
                          "Predicts RDMA writes between two nodes: a stream as ib_write_bw "
                          "prints it, or their latency as ib_write_lat does.",
                          out, vm)) {
    return 0;
  }
  const bool latency = test == "write_lat";
  if (!latency && test != "write_bw") {
    throw sim::InputError("--test: expected write_bw or write_lat, got '" + test + "'");
  }
  const OutputFormat output_format = parse_format(format, kFormats);
  if (!vm.count("iters")) {
    iterations = latency ? 1000 : 5000;  // perftest's defaults
  }
  if (iterations < 1) {
    throw sim::InputError(fmt::format("--iters: expected at least 1, got {}", iterations));
  }
  models::scenario::SystemFile file = models::scenario::system_from_argument(system_name);
  models::SystemSpec& spec = file.system;
  if (vm.count("nodes")) {
    if (nodes < 2) {
      throw sim::InputError(fmt::format("--nodes: expected at least 2, got {}", nodes));
    }
    spec.nodes = nodes;
  }
  nodes = spec.nodes;
  models::Endpoint from = parse_endpoint(from_text, "from");
  models::Endpoint to = parse_endpoint(to_text, "to");
  for (const models::Endpoint* e : {&from, &to}) {
    if (e->node < 0 || e->node >= nodes || e->gpu < models::kHostMemory ||
        e->gpu >= static_cast<int>(spec.node.gpus.size())) {
      throw sim::InputError(fmt::format("--from/--to: node {} GPU {} is not in {} nodes of {}",
                                        e->node, e->gpu, nodes, system_name));
    }
  }
  std::vector<std::int64_t> sizes;
  if (vm.count("all")) {
    sizes.reserve(23);
    for (std::int64_t s = 2; s <= (std::int64_t{1} << 23); s *= 2) {
      sizes.push_back(s);
    }
  } else if (!size_text.empty()) {
    try {
      sizes.push_back(models::scenario::parse_size(size_text).count);
    } catch (const sim::InputError& error) {
      throw sim::InputError(std::string("--size: ") + error.what());
    }
    if (sizes.back() < 1) {
      throw sim::InputError("--size: expected at least 1 byte, got '" + size_text + "'");
    }
  } else {
    sizes.push_back(latency ? 2 : 65536);  // perftest's default message sizes
  }

  // Each end uses the NIC nearest its GPU, or the one asked for (NIC 0 for host memory).
  std::string nic_name;
  {
    sim::Simulator probe_sim;
    sim::FlowNetwork probe_net(probe_sim);
    const models::System probe(spec, probe_net);
    const int count = static_cast<int>(probe.compute_nics().size());
    for (models::Endpoint* e : {&from, &to}) {
      e->nic =
          nic_option >= 0
              ? nic_option
              : (e->gpu == models::kHostMemory ? 0 : probe.nearest_compute_nic(e->node, e->gpu));
      if (e->nic >= count) {
        throw sim::InputError(
            fmt::format("--nic: {} has {} compute NICs, got {}", system_name, count, e->nic));
      }
    }
    nic_name = spec.node
                   .nics[static_cast<std::size_t>(
                       probe.compute_nics()[static_cast<std::size_t>(from.nic)])]
                   .name;
  }

  const models::SystemPreparation prepare = [&file](models::System& system,
                                                    sim::FlowNetwork& network) {
    models::scenario::apply_faults(file, system, network);
  };
  const auto print_json = [&](nlohmann::ordered_json rows) {
    const nlohmann::ordered_json doc = {
        {"test", test}, {"system", system_name}, {"rows", std::move(rows)}};
    out << doc.dump(2) << "\n";
  };
  const std::optional<LoadedProfile> profile = load_profile(profile_path);
  if (profile) {
    models::CollectiveCalibration collectives;  // p2p runs no collective
    apply_profile(*profile, spec, collectives);
    warn_outside_rdma_range(*profile, sizes);
  }
  // The figure perftest users compare, per size: t_typical (us) or BW average (Gb/s).
  const auto figures = [&](const models::SystemSpec& system) {
    std::vector<double> values;
    values.reserve(sizes.size());
    for (const std::int64_t size : sizes) {
      values.push_back(latency
                           ? models::rdma_write_latency_us(system, prepare, from, to, size)
                           : models::rdma_write_stream(system, prepare, from, to, size, iterations)
                                     .average_bytes_per_s *
                                 8e-9);
    }
    return values;
  };
  const std::vector<double> at_profile = figures(spec);
  std::vector<double> band;
  if (profile) {
    band = one_sigma_band(*profile, spec, {}, at_profile,
                          [&](const models::SystemSpec& system,
                              const models::CollectiveCalibration&) { return figures(system); });
  }
  const char* band_name = latency ? "lat_sigma_us" : "bw_avg_sigma_Gbps";
  const auto add_band = [&](nlohmann::ordered_json& rows) {
    for (std::size_t i = 0; i < band.size(); ++i) {
      rows[i][band_name] = std::isfinite(band[i]) ? nlohmann::ordered_json(band[i])
                                                  : nlohmann::ordered_json(nullptr);
    }
  };
  const auto print_band = [&](const char* unit) {
    if (band.empty()) {
      return;
    }
    fmt::print(out, "# railsim calibration profile {}: one-sigma band of each {}\n", profile->path,
               unit);
    for (std::size_t i = 0; i < band.size(); ++i) {
      fmt::print(out, "#   {:>8} B  {:10.3f} +- {:.3f}\n", sizes[i], at_profile[i], band[i]);
    }
  };
  if (latency) {
    std::vector<LatencyRow> rows;
    rows.reserve(sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      rows.push_back({sizes[i], iterations, at_profile[i]});
    }
    if (output_format == OutputFormat::kJson) {
      nlohmann::ordered_json json_rows = nlohmann::ordered_json::array();
      for (const LatencyRow& r : rows) {
        json_rows.push_back(latency_json(r));
      }
      add_band(json_rows);
      print_json(std::move(json_rows));
      return 0;
    }
    print_banner(out, "RDMA_Write Latency Test", 1, nic_name, system_name, from, to);
    print_latency_table(out, rows);
    print_band("t_typical [usec]");
    return 0;
  }
  std::vector<models::RdmaStreamResult> rows;
  rows.reserve(sizes.size());
  for (std::int64_t size : sizes) {
    rows.push_back(models::rdma_write_stream(spec, prepare, from, to, size, iterations));
  }
  if (output_format == OutputFormat::kJson) {
    nlohmann::ordered_json json_rows = nlohmann::ordered_json::array();
    for (const models::RdmaStreamResult& r : rows) {
      json_rows.push_back({{"size_bytes", r.size},
                           {"iterations", r.iterations},
                           {"bw_avg_Gbps", r.average_bytes_per_s * 8e-9},
                           {"bw_peak_Gbps", r.peak_bytes_per_s * 8e-9},
                           {"lat_us", r.one_message_us}});
    }
    add_band(json_rows);
    print_json(std::move(json_rows));
    return 0;
  }
  print_banner(out, "RDMA_Write BW Test", 128, nic_name, system_name, from, to);
  print_bandwidth_table(out, rows, vm.count("report_gbits") > 0);
  print_band("BW average [Gb/sec]");
  return 0;
}

}  // namespace railsim::tools
