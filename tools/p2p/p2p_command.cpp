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
#include "tools/gdr_level_option.hpp"
#include "tools/nodes_option.hpp"
#include "tools/p2p/perftest_output.hpp"
#include "tools/profile_option.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;

constexpr std::array<Choice<OutputFormat>, 2> kFormats = {
    {{"perftest", OutputFormat::kText}, {"json", OutputFormat::kJson}}};

// `text` as a whole number, all of it (std::stoi's reading), or nothing.
std::optional<int> whole_number(const std::string& text) {
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    return used == text.size() ? std::optional(value) : std::nullopt;
  } catch (const std::logic_error&) {
    return std::nullopt;
  }
}

// "3" (host memory of node 3) or "3:5" (GPU 5 of node 3).
models::Endpoint parse_endpoint(const std::string& text, const char* option) {
  const auto colon = text.find(':');
  const std::optional<int> node = whole_number(text.substr(0, colon));
  const std::optional<int> gpu = colon == std::string::npos ? std::optional(models::kHostMemory)
                                                            : whole_number(text.substr(colon + 1));
  if (!node || !gpu) {
    throw sim::InputError(
        fmt::format("--{}: expected NODE or NODE:GPU such as 0 or 1:3, got '{}'", option, text));
  }
  models::Endpoint endpoint;
  endpoint.node = *node;
  endpoint.gpu = *gpu;
  return endpoint;
}

// The options as given, checked as far as they can be without the system.
struct P2pOptions {
  std::string system_name;
  std::optional<int> nodes;  // --nodes, checked against the system
  std::string from_text;
  std::string to_text;
  std::optional<int> nic;  // unset: the GPU's nearest compute NIC, else NIC 0
  bool all_nics = false;   // --nic all: every compute NIC in turn, as a loop over perftest's -d
  std::string size_text;
  bool all_sizes = false;
  std::int64_t iterations = 0;
  bool report_gbits = false;
  std::string test;  // write_bw or write_lat
  bool latency = false;
  OutputFormat format = OutputFormat::kText;
  std::string profile_path;
  std::optional<models::PathClass> gdr_level;  // --gdr-level
};

// --nic's index: a whole number from 0.
int parse_nic_index(const std::string& text) {
  const std::optional<int> index = whole_number(text);
  if (!index || *index < 0) {
    throw sim::InputError("--nic: expected a compute NIC index from 0, or all, got '" + text + "'");
  }
  return *index;
}

// nullopt after --help.
std::optional<P2pOptions> parse_options(const std::vector<std::string>& args, std::ostream& out) {
  P2pOptions o;
  std::string format;
  std::string nic;
  int nodes = 0;
  po::options_description options(
      "railsim p2p --system PRESET|FILE [--from NODE[:GPU]] [--to NODE[:GPU]] [-s SIZE | -a] "
      "[--test write_bw|write_lat]");
  options.add_options()("system", po::value(&o.system_name)->required(),
                        "a node preset (2 nodes) or a scenario file (.json)")(
      "nodes", po::value(&nodes), "override the number of nodes")(
      "from", po::value(&o.from_text)->default_value("0"),
      "sender: NODE (host memory) or NODE:GPU")("to", po::value(&o.to_text)->default_value("1"),
                                                "receiver: NODE or NODE:GPU")(
      "nic", po::value(&nic),
      "compute NIC index (default: the GPU's nearest, else 0), or all: each in turn, a port "
      "check as a loop over ib_write_bw -d DEVICE")(
      "size,s", po::value(&o.size_text),
      "message size, e.g. 65536 or 8M (default 65536 for write_bw, 2 for write_lat)")(
      "all,a", "sweep sizes 2 B to 8 MiB in powers of 2, as perftest's -a")(
      "iters,n", po::value(&o.iterations),
      "messages per size (default 5000 for write_bw, 1000 for write_lat)")(
      "report_gbits", "bandwidth in Gb/sec instead of MB/sec (2^20 B)")(
      "test", po::value(&o.test)->default_value("write_bw"),
      "write_bw: a stream, as ib_write_bw; write_lat: a ping-pong, as ib_write_lat, half the "
      "round trip. The model is deterministic: every write_lat statistic (t_min, t_max, "
      "t_typical, t_avg, the percentiles) is the one latency, and t_stdev is 0")(
      "format", po::value(&format)->default_value("perftest"), "perftest or json")(
      "profile", po::value(&o.profile_path),
      "a calibration profile (railsim calibrate -o): its parameters, with a one-sigma band");
  add_gdr_level_option(options, o.gdr_level);
  po::variables_map vm;
  if (!parse_command_line(args, options,
                          "Predicts RDMA writes between two nodes: a stream as ib_write_bw "
                          "prints it, or their latency as ib_write_lat does.",
                          out, vm)) {
    return std::nullopt;
  }
  o.latency = o.test == "write_lat";
  if (!o.latency && o.test != "write_bw") {
    throw sim::InputError("--test: expected write_bw or write_lat, got '" + o.test + "'");
  }
  o.format = parse_format(format, kFormats);
  if (!vm.count("iters")) {
    o.iterations = o.latency ? 1000 : 5000;  // perftest's defaults
  }
  if (o.iterations < 1) {
    throw sim::InputError(fmt::format("--iters: expected at least 1, got {}", o.iterations));
  }
  if (vm.count("nodes")) {
    o.nodes = nodes;
  }
  o.all_sizes = vm.count("all") > 0;
  o.all_nics = nic == "all";
  if (!nic.empty() && !o.all_nics) {
    o.nic = parse_nic_index(nic);
  }
  o.report_gbits = vm.count("report_gbits") > 0;
  return o;
}

// What the options become on the system: both ends, each with its NIC, and the sizes.
struct P2pSetup {
  models::scenario::SystemFile file;
  models::Endpoint from;
  models::Endpoint to;
  std::vector<std::int64_t> sizes;
  std::string nic_name;  // the sender's NIC, as perftest's banner names the device
  std::vector<std::string> compute_nic_names;  // by compute NIC index
};

std::vector<std::int64_t> message_sizes(const P2pOptions& o) {
  std::vector<std::int64_t> sizes;
  if (o.all_sizes) {
    sizes.reserve(23);
    for (std::int64_t s = 2; s <= (std::int64_t{1} << 23); s *= 2) {
      sizes.push_back(s);
    }
    return sizes;
  }
  if (o.size_text.empty()) {
    return {o.latency ? 2 : 65536};  // perftest's default message sizes
  }
  try {
    sizes.push_back(models::scenario::parse_size(o.size_text).count);
  } catch (const sim::InputError& error) {
    throw sim::InputError(std::string("--size: ") + error.what());
  }
  if (sizes.back() < 1) {
    throw sim::InputError("--size: expected at least 1 byte, got '" + o.size_text + "'");
  }
  return sizes;
}

// Each end uses the NIC nearest its GPU, or the one asked for (NIC 0 for host memory).
void choose_nics(const P2pOptions& o, P2pSetup& setup) {
  const models::SystemSpec& spec = setup.file.system;
  sim::Simulator probe_sim;
  sim::FlowNetwork probe_net(probe_sim);
  const models::System probe(spec, probe_net);
  const int count = static_cast<int>(probe.compute_nics().size());
  for (const auto nic : probe.compute_nics()) {
    setup.compute_nic_names.push_back(spec.node.nics[static_cast<std::size_t>(nic)].name);
  }
  for (models::Endpoint* e : {&setup.from, &setup.to}) {
    e->nic = o.nic
                 ? *o.nic
                 : (e->gpu == models::kHostMemory ? 0 : probe.nearest_compute_nic(e->node, e->gpu));
    if (e->nic >= count) {
      throw sim::InputError(
          fmt::format("--nic: {} has {} compute NICs, got {}", o.system_name, count, e->nic));
    }
  }
  setup.nic_name = setup.compute_nic_names[static_cast<std::size_t>(setup.from.nic)];
}

P2pSetup set_up(const P2pOptions& o) {
  P2pSetup setup{models::scenario::system_from_argument(o.system_name), {}, {}, {}, {}, {}};
  models::SystemSpec& spec = setup.file.system;
  if (o.nodes) {
    apply_nodes_option(spec, *o.nodes, 2);
  }
  apply_gdr_level_option(o.gdr_level, spec);
  setup.from = parse_endpoint(o.from_text, "from");
  setup.to = parse_endpoint(o.to_text, "to");
  for (const auto& [e, option, text] : {std::tuple{&setup.from, "--from", &o.from_text},
                                        std::tuple{&setup.to, "--to", &o.to_text}}) {
    if (e->node < 0 || e->node >= spec.nodes) {
      throw sim::InputError(fmt::format("{} {}: expected a node from 0 to {} ({} has {} nodes)",
                                        option, *text, spec.nodes - 1, o.system_name, spec.nodes));
    }
    if (e->gpu < models::kHostMemory || e->gpu >= static_cast<int>(spec.node.gpus.size())) {
      throw sim::InputError(fmt::format("{} {}: expected a GPU from 0 to {} (a node of {} has {})",
                                        option, *text, spec.node.gpus.size() - 1, o.system_name,
                                        spec.node.gpus.size()));
    }
  }
  setup.sizes = message_sizes(o);
  choose_nics(o, setup);
  return setup;
}

// The figure perftest users compare, per size: t_typical (us) or BW average (Gb/s).
std::vector<double> figures(const P2pOptions& o,
                            const P2pSetup& setup,
                            const models::SystemPreparation& prepare,
                            const models::SystemSpec& system) {
  std::vector<double> values;
  values.reserve(setup.sizes.size());
  for (const std::int64_t size : setup.sizes) {
    values.push_back(
        o.latency
            ? models::rdma_write_latency_us(system, prepare, setup.from, setup.to, size)
            : models::rdma_write_stream(system, prepare, setup.from, setup.to, size, o.iterations)
                      .average_bytes_per_s *
                  8e-9);
  }
  return values;
}

// The figures at the profile (or the system's own parameters) and, with a profile, each one's
// one-sigma band.
struct Prediction {
  std::vector<double> at_profile;
  std::vector<double> band;
  std::string profile_path;
};

void add_band(const P2pOptions& o, const Prediction& p, nlohmann::ordered_json& rows) {
  const char* name = o.latency ? "lat_sigma_us" : "bw_avg_sigma_Gbps";
  for (std::size_t i = 0; i < p.band.size(); ++i) {
    rows[i][name] = std::isfinite(p.band[i]) ? nlohmann::ordered_json(p.band[i])
                                             : nlohmann::ordered_json(nullptr);
  }
}

void print_band(const std::vector<std::int64_t>& sizes,
                const Prediction& p,
                const char* unit,
                std::ostream& out) {
  if (p.band.empty()) {
    return;
  }
  fmt::print(out, "# railsim calibration profile {}: one-sigma band of each {}\n", p.profile_path,
             unit);
  for (std::size_t i = 0; i < p.band.size(); ++i) {
    fmt::print(out, "#   {:>8} B  {:10.3f} +- {:.3f}\n", sizes[i], p.at_profile[i], p.band[i]);
  }
}

// One port's JSON document.
nlohmann::ordered_json json_doc(const P2pOptions& o,
                                const P2pSetup& setup,
                                nlohmann::ordered_json rows) {
  return {{"test", o.test},
          {"system", o.system_name},
          {"device", setup.nic_name},
          {"rows", std::move(rows)}};
}

// The perftest block of one port, or with JSON its document added to `docs`.
void print_latency(const P2pOptions& o,
                   const P2pSetup& setup,
                   const Prediction& p,
                   nlohmann::ordered_json& docs,
                   std::ostream& out) {
  std::vector<LatencyRow> rows;
  rows.reserve(setup.sizes.size());
  for (std::size_t i = 0; i < setup.sizes.size(); ++i) {
    rows.push_back({setup.sizes[i], o.iterations, p.at_profile[i]});
  }
  if (o.format == OutputFormat::kJson) {
    nlohmann::ordered_json json_rows = nlohmann::ordered_json::array();
    for (const LatencyRow& r : rows) {
      json_rows.push_back(latency_json(r));
    }
    add_band(o, p, json_rows);
    docs.push_back(json_doc(o, setup, std::move(json_rows)));
    return;
  }
  print_banner(out, "RDMA_Write Latency Test", 1, setup.nic_name, o.system_name, setup.from,
               setup.to);
  print_latency_table(out, rows);
  print_band(setup.sizes, p, "t_typical [usec]", out);
}

void print_bandwidth(const P2pOptions& o,
                     const P2pSetup& setup,
                     const models::SystemPreparation& prepare,
                     const Prediction& p,
                     nlohmann::ordered_json& docs,
                     std::ostream& out) {
  std::vector<models::RdmaStreamResult> rows;
  rows.reserve(setup.sizes.size());
  for (const std::int64_t size : setup.sizes) {
    rows.push_back(models::rdma_write_stream(setup.file.system, prepare, setup.from, setup.to, size,
                                             o.iterations));
  }
  if (o.format == OutputFormat::kJson) {
    nlohmann::ordered_json json_rows = nlohmann::ordered_json::array();
    for (const models::RdmaStreamResult& r : rows) {
      json_rows.push_back({{"size_bytes", r.size},
                           {"iterations", r.iterations},
                           {"bw_avg_Gbps", r.average_bytes_per_s * 8e-9},
                           {"bw_peak_Gbps", r.peak_bytes_per_s * 8e-9},
                           {"lat_us", r.one_message_us}});
    }
    add_band(o, p, json_rows);
    docs.push_back(json_doc(o, setup, std::move(json_rows)));
    return;
  }
  print_banner(out, "RDMA_Write BW Test", 128, setup.nic_name, o.system_name, setup.from, setup.to);
  print_bandwidth_table(out, rows, o.report_gbits);
  print_band(setup.sizes, p, "BW average [Gb/sec]", out);
}

int run(const P2pOptions& o, std::ostream& out) {
  P2pSetup setup = set_up(o);
  const models::scenario::SystemFile& file = setup.file;
  const models::SystemPreparation prepare = [&file](models::System& system,
                                                    sim::FlowNetwork& network) {
    models::scenario::apply_faults(file, system, network);
  };
  const std::optional<LoadedProfile> profile = load_profile(o.profile_path);
  if (profile) {
    models::CollectiveCalibration collectives;  // p2p runs no collective
    apply_profile(*profile, setup.file.system, collectives);
    warn_outside_rdma_range(*profile, setup.sizes);
  }
  // Every compute NIC in turn with --nic all (both ends on the same index: its rail), else the
  // one chosen.
  std::vector<int> nics = {setup.from.nic};
  if (o.all_nics) {
    nics.resize(setup.compute_nic_names.size());
    std::iota(nics.begin(), nics.end(), 0);
  }
  nlohmann::ordered_json docs = nlohmann::ordered_json::array();
  for (const int nic : nics) {
    setup.from.nic = nic;
    setup.to.nic = nic;
    setup.nic_name = setup.compute_nic_names[static_cast<std::size_t>(nic)];
    Prediction prediction;
    prediction.at_profile = figures(o, setup, prepare, setup.file.system);
    if (profile) {
      prediction.profile_path = profile->path;
      prediction.band = one_sigma_band(
          *profile, setup.file.system, {}, prediction.at_profile,
          [&](const models::SystemSpec& system, const models::CollectiveCalibration&) {
            return figures(o, setup, prepare, system);
          });
    }
    if (o.latency) {
      print_latency(o, setup, prediction, docs, out);
    } else {
      print_bandwidth(o, setup, prepare, prediction, docs, out);
    }
  }
  if (o.format == OutputFormat::kJson) {
    out << (o.all_nics ? docs : docs.front()).dump(2) << "\n";
  }
  return 0;
}

}  // namespace

int run_p2p(const std::vector<std::string>& args, std::ostream& out) {
  return parse_and_run(args, out, parse_options, run);
}

}  // namespace railsim::tools
