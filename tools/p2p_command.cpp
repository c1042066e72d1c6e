// File: tools/p2p_command.cpp
// `railsim p2p`: an RDMA write stream between two nodes over the model, printed in the columns
// of perftest's ib_write_bw, so a real log and the prediction sit side by side. Like
// ib_write_bw, one queue pair keeps messages in flight back to back; without a GPU the buffers
// are in the host memory of the NIC's socket (as without --use_cuda), with NODE:GPU in that GPU.
#include "models/scenario/quantity.hpp"
#include "models/scenario/system_file.hpp"
#include "models/system/system.hpp"
#include "sim/input_error.hpp"
#include "sim/simulator.hpp"
#include "tools/command.hpp"
#include "tools/command_line.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;

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

struct Row {
  std::int64_t size;
  std::int64_t iterations;
  double peak_bytes_per_s;
  double average_bytes_per_s;
  double one_message_us;
};

// One size: `iterations` messages of `size` bytes, back to back on one queue pair, as one flow
// capped at the queue pair's message rate.
Row measure(const models::scenario::SystemFile& file,
            models::Endpoint from,
            models::Endpoint to,
            std::int64_t size,
            std::int64_t iterations) {
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const models::SystemSpec& spec = file.system;
  models::System system(spec, network);
  models::scenario::apply_faults(file, system, network);
  const int nic = system.compute_nics().at(static_cast<std::size_t>(from.nic));
  const double message_rate = spec.node.nics[static_cast<std::size_t>(nic)].message_rate_per_qp;
  // The stream over each of the routing's paths in equal shares (one path unless adaptive).
  const std::vector<std::vector<sim::LinkId>> paths = system.routes(from, to);
  const auto shares = static_cast<std::int64_t>(paths.size());
  sim::FlowRecord record;
  for (std::int64_t k = 0; k < shares; ++k) {
    sim::FlowSpec stream;
    stream.path = paths[static_cast<std::size_t>(k)];
    stream.size = sim::bytes((size * iterations + shares - 1 - k) / shares);
    stream.rate_cap =
        sim::bytes_per_s(static_cast<double>(size) * message_rate / static_cast<double>(shares));
    stream.on_complete = [&record](const sim::FlowRecord& r) {
      record.start = r.start;
      record.drained = std::max(record.drained, r.drained);
      record.end = std::max(record.end, r.end);
    };
    network.start_flow(std::move(stream));
  }
  simulator.run();
  const double total = static_cast<double>(size * iterations);
  const sim::Duration latency = record.end - record.drained;
  const double steady = total / sim::to_seconds(record.drained - record.start);
  return {size, iterations, steady, total / sim::to_seconds(record.end - record.start),
          sim::to_us(latency) + static_cast<double>(size) / steady * 1e6};
}

}  // namespace

int run_p2p(const std::vector<std::string>& args, std::ostream& out) {
  std::string system_name;
  std::string from_text;
  std::string to_text;
  std::string test;
  std::string format;
  std::string size_text;
  int nodes = 0;
  int nic_option = -1;
  std::int64_t iterations = 5000;
  po::options_description options(
      "railsim p2p --system PRESET|FILE [--from NODE[:GPU]] [--to NODE[:GPU]] [-s SIZE | -a]");
  options.add_options()("system", po::value(&system_name)->required(),
                        "a node preset (2 nodes) or a scenario file (.json)")(
      "nodes", po::value(&nodes), "override the number of nodes")(
      "from", po::value(&from_text)->default_value("0"), "sender: NODE (host memory) or NODE:GPU")(
      "to", po::value(&to_text)->default_value("1"), "receiver: NODE or NODE:GPU")(
      "nic", po::value(&nic_option), "compute NIC index (default: the GPU's nearest, else 0)")(
      "size,s", po::value(&size_text), "message size, e.g. 65536 or 8M")(
      "all,a", "sweep sizes 2 B to 8 MiB in powers of 2, as ib_write_bw -a")(
      "iters,n", po::value(&iterations)->default_value(5000), "messages per size")(
      "report_gbits", "bandwidth in Gb/sec instead of MB/sec (2^20 B)")(
      "test", po::value(&test)->default_value("write_bw"), "write_bw")(
      "format", po::value(&format)->default_value("perftest"), "perftest or json");
  po::variables_map vm;
  if (!parse_command_line(args, options,
                          "Predicts an RDMA write stream between two nodes, printed as "
                          "ib_write_bw prints it.",
                          out, vm)) {
    return 0;
  }
  if (test != "write_bw") {
    throw sim::InputError("--test: expected write_bw, got '" + test + "'");
  }
  if (format != "perftest" && format != "json") {
    throw sim::InputError("--format: expected perftest or json, got '" + format + "'");
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
    sizes.push_back(65536);  // ib_write_bw's default message size
  }

  // Each end uses the NIC nearest its GPU, or the one asked for (NIC 0 for host memory).
  std::string nic_name;
  {
    sim::Simulator probe_sim;
    sim::FlowNetwork probe_net(probe_sim);
    const models::System probe(spec, probe_net);
    const int count = static_cast<int>(probe.compute_nics().size());
    for (models::Endpoint* e : {&from, &to}) {
      e->nic = nic_option >= 0
                   ? nic_option
                   : (e->gpu == models::kHostMemory ? 0 : probe.nearest_compute_nic(e->gpu));
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

  std::vector<Row> rows;
  rows.reserve(sizes.size());
  for (std::int64_t size : sizes) {
    rows.push_back(measure(file, from, to, size, iterations));
  }
  const bool gbits = vm.count("report_gbits") > 0;
  auto in_unit = [&](double bytes_per_s) {
    return gbits ? bytes_per_s * 8e-9 : bytes_per_s / (1024.0 * 1024.0);
  };
  if (format == "json") {
    nlohmann::ordered_json doc;
    doc["test"] = test;
    doc["system"] = system_name;
    doc["rows"] = nlohmann::ordered_json::array();
    for (const Row& r : rows) {
      doc["rows"].push_back({{"size_bytes", r.size},
                             {"iterations", r.iterations},
                             {"bw_avg_Gbps", r.average_bytes_per_s * 8e-9},
                             {"bw_peak_Gbps", r.peak_bytes_per_s * 8e-9},
                             {"lat_us", r.one_message_us}});
    }
    out << doc.dump(2) << "\n";
    return 0;
  }
  fmt::print(out, "{}                    RDMA_Write BW Test\n", kRule);
  fmt::print(out, " Device          : {}\t\tModel          : railsim {}\n", nic_name, system_name);
  fmt::print(out, " Number of qps   : 1\t\tTransport type : IB\n");
  fmt::print(out, " Connection type : RC\t\tUsing SRQ      : OFF\n");
  fmt::print(out, " TX depth        : 128\n");
  fmt::print(out, " Mtu             : 4096[B]\n");
  fmt::print(out, " Link type       : IB\n");
  fmt::print(out, " Buffers         : {} -> {}\n",
             from.gpu == models::kHostMemory ? fmt::format("node {} host memory", from.node)
                                             : fmt::format("node {} GPU {}", from.node, from.gpu),
             to.gpu == models::kHostMemory ? fmt::format("node {} host memory", to.node)
                                           : fmt::format("node {} GPU {}", to.node, to.gpu));
  const char* unit = gbits ? "Gb/sec" : "MB/sec";
  fmt::print(out, "{} #bytes     #iterations    BW peak[{}]    BW average[{}]   MsgRate[Mpps]\n",
             kRule, unit, unit);
  for (const Row& r : rows) {
    fmt::print(out, " {:<7}    {:<7}          {:<7.2f}            {:<7.2f}\t\t   {:<7.6f}\n",
               r.size, r.iterations, in_unit(r.peak_bytes_per_s), in_unit(r.average_bytes_per_s),
               r.average_bytes_per_s / static_cast<double>(r.size) * 1e-6);
  }
  fmt::print(out, "{}", kRule);
  return 0;
}

}  // namespace railsim::tools
