// File: tools/topo/topo_command.cpp
// `railsim topo --system PRESET|FILE [--nodes N] [--format text|json|dot] [--links]`: a server's
// GPU x GPU and GPU x NIC distance matrix in the layout of `nvidia-smi topo -m` (tab-separated,
// legend and NIC legend after it), so a real dump and the model can be laid side by side; then
// the fabric's figures (FabricSummary) and, with --links, every link by the name faults use.
// --format dot draws one node and the fabric for Graphviz.
// `railsim topo --import-nvidia-smi DUMP [--ibdev2netdev FILE] [--like PRESET] [-o OUT.json]`
// infers a node from a real dump (calibrate/parse/topo_import.hpp), its models and rates those
// of PRESET if given, and writes it as a scenario file that --system reads: to OUT.json, then
// the node's matrix on stdout to lay beside the dump; or the file on stdout.
#include "calibrate/parse/ibdev2netdev.hpp"
#include "calibrate/parse/nvidia_smi_topo.hpp"
#include "calibrate/parse/text_input.hpp"
#include "calibrate/parse/topo_import.hpp"
#include "models/fabric/cabling.hpp"
#include "models/fabric/switch_radix.hpp"
#include "models/hardware/node_presets.hpp"
#include "models/hardware/topo_matrix.hpp"
#include "models/scenario/json_reader.hpp"
#include "models/scenario/node_writer.hpp"
#include "models/scenario/system_file.hpp"
#include "models/system/fabric_summary.hpp"
#include "models/system/system.hpp"
#include "sim/assert.hpp"
#include "sim/input_error.hpp"
#include "sim/simulator.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/cli_support/output_checks.hpp"
#include "tools/cli_support/output_file.hpp"
#include "tools/cli_support/output_format.hpp"
#include "tools/command.hpp"
#include "tools/max_memory_option.hpp"
#include "tools/nodes_option.hpp"
#include "tools/progress_bar.hpp"
#include "tools/topo/rate_text.hpp"
#include "tools/topo/topo_dot.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;

constexpr std::array<Choice<OutputFormat>, 3> kFormats = {
    {{"text", OutputFormat::kText}, {"json", OutputFormat::kJson}, {"dot", OutputFormat::kDot}}};

void print_text(const models::NodeSpec& node, const models::TopoMatrix& m, std::ostream& out) {
  fmt::print(out, "{}: {}\n", node.name, node.description);
  if (node.trays > 1) {
    fmt::print(out,
               "NVLink domain: {} trays of {} GPUs, one node to NCCL (MNNVL); --nodes counts "
               "trays\n",
               node.trays, node.gpus.size() / static_cast<std::size_t>(node.trays));
  }
  fmt::print(out, "\n{}", calibrate::parse::nvidia_smi_topo_text(m));
}

nlohmann::ordered_json matrix_json(const models::NodeSpec& node, const models::TopoMatrix& m) {
  nlohmann::ordered_json doc;
  doc["system"] = node.name;
  doc["description"] = node.description;
  doc["columns"] = m.columns;
  nlohmann::ordered_json matrix = nlohmann::ordered_json::object();
  nlohmann::ordered_json affinity = nlohmann::ordered_json::object();
  for (const models::TopoMatrix::Row& row : m.rows) {
    nlohmann::ordered_json cells = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < m.columns.size(); ++c) {
      cells[m.columns[c]] = row.cells[c];
    }
    matrix[row.name] = std::move(cells);
    if (!row.numa_affinity.empty()) {
      affinity[row.name] = {{"cpu_affinity", row.cpu_affinity},
                            {"numa_affinity", row.numa_affinity}};
    }
  }
  doc["matrix"] = std::move(matrix);
  doc["affinity"] = std::move(affinity);
  nlohmann::ordered_json legend = nlohmann::ordered_json::object();
  for (const auto& [column, device] : m.nic_legend) {
    legend[column] = device;
  }
  doc["nic_legend"] = std::move(legend);
  return doc;
}

double in_ns(sim::Duration d) { return static_cast<double>(d.count()) * 1e-3; }

// As scenario files spell them.
const char* transport_key(models::Transport transport) {
  return transport == models::Transport::kRoce ? "rocev2" : "infiniband";
}

// "8 to each spine", or "3, 3, 2, 2 to spines 0-3": a switch's uplinks per upper switch.
std::string uplink_spread(const std::vector<int>& per_switch, const char* kind) {
  if (std::all_of(per_switch.begin(), per_switch.end(),
                  [&](int n) { return n == per_switch.front(); })) {
    return fmt::format("{} to each {}", per_switch.front(), kind);
  }
  return fmt::format("{} to {}s 0-{}", fmt::join(per_switch, ", "), kind, per_switch.size() - 1);
}

// The ports the busiest switch of each tier uses, against what the switch model has:
// "QM9700, 64 at 400 Gb/s: a leaf uses 64, a spine 64".
std::string switch_ports_text(const models::SystemSpec& spec, const models::FabricSummary& s) {
  const models::FabricSpec& fabric = spec.fabric;
  const models::TierPorts used = models::ports_needed(fabric, s.nodes, s.rails);
  const std::string uses = fmt::format("a leaf uses {}, a spine {}{}", used.leaf, used.spine,
                                       s.tiers == 3 ? fmt::format(", a core {}", used.core) : "");
  if (!fabric.switch_model) {
    return uses + " (no switch model named: /system/fabric/switch)";
  }
  return fmt::format("{}, {} at {:g} Gb/s: {}", fabric.switch_model->name,
                     models::ports_at(*fabric.switch_model, fabric.port_rate),
                     fabric.port_rate.in_gbps(), uses);
}

void print_fabric_text(const models::SystemSpec& spec,
                       const models::FabricSummary& s,
                       std::ostream& out) {
  const models::FabricSpec& fabric = spec.fabric;
  const bool three_tiers = s.tiers == 3;
  const std::string nodes = spec.node.trays > 1
                                ? fmt::format("{} nodes ({} trays in NVLink domains of {})",
                                              s.nodes, s.nodes * spec.node.trays, spec.node.trays)
                                : fmt::format("{} nodes", s.nodes);
  fmt::print(out, "\nFabric: {} on a {}, {} rails, {}, MTU {}, {} routing\n\n", nodes,
             three_tiers ? "three-tier leaf/spine/core" : "two-tier leaf/spine",
             models::rail_mapping_key(fabric.rails), models::transport_name(fabric.transport),
             fabric.mtu, fabric.routing == models::Routing::kAdaptive ? "adaptive" : "ECMP");
  auto row = [&out](const char* label, const std::string& value) {
    fmt::print(out, "  {:<32}{}\n", label, value);
  };
  // A row of the third tier only, so a two-tier fabric prints as it always has; `value` is
  // called only then, as the third tier's figures are empty otherwise.
  auto tier3_row = [&](const char* label, const auto& value) {
    if (three_tiers) {
      row(label, value());
    }
  };
  row("Rails (compute NICs per node)", fmt::format("{}", s.rails));
  row("Scalable units", fmt::format("{} of {} nodes per leaf", s.scalable_units, s.nodes_per_leaf));
  // Top-of-rack, a unit's leaves are racks of whole nodes, not rails.
  const std::string per_unit =
      fabric.rails == models::RailMapping::kTopOfRack
          ? fmt::format("{} racks of {} node{}", s.rails, s.nodes_per_leaf / s.rails,
                        s.nodes_per_leaf == s.rails ? "" : "s")
          : fmt::format("{} rails", s.rails);
  row("Leaves", fmt::format("{} ({} x {} unit{})", s.leaves, per_unit, s.scalable_units,
                            s.scalable_units == 1 ? "" : "s"));
  const bool planes = s.planes > 1;
  const std::string per_plane = planes ? fmt::format(" x {} planes", s.planes) : "";
  if (planes) {
    row("Planes", fmt::format("{} of {} rail{}, sharing no switch", s.planes, s.rails_per_plane,
                              s.rails_per_plane == 1 ? "" : "s"));
  }
  tier3_row("Pods", [&] {
    return fmt::format("{} of {} unit{}{}", s.pods, s.units_per_pod,
                       s.units_per_pod == 1 ? "" : "s", planes ? " in each plane" : "");
  });
  row("Spines",
      three_tiers ? fmt::format("{} ({} per pod x {} pod{}{})", s.spines, s.spines_per_pod, s.pods,
                                s.pods == 1 ? "" : "s", per_plane)
      : planes    ? fmt::format("{} ({} per plane{})", s.spines, s.spines / s.planes, per_plane)
                  : fmt::format("{}", s.spines));
  tier3_row("Cores", [&] {
    return planes ? fmt::format("{} ({} per plane{})", s.cores, s.cores_per_plane, per_plane)
                  : fmt::format("{}", s.cores);
  });
  row("Uplinks per leaf",
      fmt::format("{} ({})", s.uplinks_per_leaf, uplink_spread(s.uplinks_to_spine, "spine")));
  tier3_row("Uplinks per spine", [&] {
    if (s.uplinks_to_core.size() < static_cast<std::size_t>(s.cores_per_plane)) {
      // Core groups: one cable to each core of the spine's group (fabric_spec.hpp).
      return fmt::format(
          "{0} (one to each of cores {0}s to {0}s + {1} mod {2}{3}, s the spine's "
          "place in its pod)",
          s.uplinks_per_spine, s.uplinks_per_spine - 1, s.cores_per_plane,
          planes ? " of its plane" : "");
    }
    return fmt::format("{} ({})", s.uplinks_per_spine, uplink_spread(s.uplinks_to_core, "core"));
  });
  row("Switch ports", switch_ports_text(spec, s));
  if (fabric.sharp) {
    // A row of a fabric that reduces only, so others print as they always have.
    row("In-network reduction (SHARP)",
        fmt::format("leaves, spines{} reduce: collnetdirect and collnetchain AllReduce, {:g} ns "
                    "added per switch",
                    three_tiers ? " and cores" : "", in_ns(fabric.sharp->latency)));
  }
  row("Line rate", in_gbps(s.line_rate) + " per port and direction");
  row("Wire efficiency",
      fmt::format("{:.4f} (payload share at MTU {})", s.wire_efficiency, fabric.mtu));
  // A NIC faster than the fabric's ports trains down to them: said, since a node preset alone
  // gets the default fabric's 400G ports whatever its NICs.
  row("Port rate, node to leaf",
      fmt::format(
          "{} payload ({}){}", in_gbps(s.node_port_rate), in_gbytes(s.node_port_rate),
          s.nic_line_rate > s.line_rate
              ? fmt::format("; the NICs' {} held to the fabric's ports", in_gbps(s.nic_line_rate))
              : std::string()));
  row("Port rate, leaf to spine",
      fmt::format("{} payload ({})", in_gbps(s.port_rate), in_gbytes(s.port_rate)));
  tier3_row("Port rate, spine to core", [&] {
    return fmt::format("{} payload ({})", in_gbps(s.core_port_rate), in_gbytes(s.core_port_rate));
  });
  row("Leaf downlink capacity",
      fmt::format("{} ({} ports)", in_gbytes(s.leaf_downlink), s.nodes_per_leaf));
  row("Leaf uplink capacity",
      fmt::format("{} ({} ports)", in_gbytes(s.leaf_uplink), s.uplinks_per_leaf));
  tier3_row("Spine downlink capacity", [&] {
    return fmt::format("{} ({} ports)", in_gbytes(s.spine_downlink), s.downlinks_per_spine);
  });
  tier3_row("Spine uplink capacity", [&] {
    return fmt::format("{} ({} ports)", in_gbytes(s.spine_uplink), s.uplinks_per_spine);
  });
  row("Oversubscription", fmt::format("{:.2f}:1 (downlink:uplink; requested {:g}:1)",
                                      s.oversubscription, s.requested_oversubscription));
  tier3_row("Core oversubscription", [&] {
    return fmt::format("{:.2f}:1 (spine downlink:uplink; requested {:g}:1)",
                       s.core_oversubscription, s.requested_core_oversubscription);
  });
  row("Bisection bandwidth", in_gbytes(s.bisection) + " per direction");
  row("Links, node to leaf", fmt::format("{} (one per direction)", s.node_port_links));
  row("Links, leaf to spine", fmt::format("{}", s.leaf_spine_links));
  tier3_row("Links, spine to core", [&] { return fmt::format("{}", s.spine_core_links); });
  row("Links inside nodes", fmt::format("{}", s.node_links));
  row("Links in all", fmt::format("{}", s.total_links));
  row("Degraded links", s.degraded.empty() ? "none" : fmt::format("{}", s.degraded.size()));
  for (const models::DegradedLink& d : s.degraded) {
    fmt::print(out, "    {:<30}{} (designed {})\n", d.name, in_gbps(d.capacity),
               in_gbps(d.designed));
  }
}

void print_links_text(const sim::FlowNetwork& network, std::ostream& out) {
  std::size_t width = 4;
  for (std::uint32_t l = 0; l < network.link_count(); ++l) {
    width = std::max(width, network.link(sim::LinkId{l}).name.size());
  }
  fmt::print(out, "\nLinks ({}, one per direction; faults refer to these names):\n\n",
             network.link_count());
  fmt::print(out, "  {:<{}}  {:>13}  {:>9}\n", "name", width, "capacity", "latency");
  for (std::uint32_t l = 0; l < network.link_count(); ++l) {
    const sim::LinkInfo link = network.link(sim::LinkId{l});
    fmt::print(out, "  {:<{}}  {:>13}  {:>6g} ns\n", link.name, width, in_gbps(link.capacity),
               in_ns(link.latency));
  }
}

nlohmann::ordered_json fabric_json(const models::SystemSpec& spec, const models::FabricSummary& s) {
  nlohmann::ordered_json j;
  j["nodes"] = s.nodes;
  j["rails"] = s.rails;
  j["rail_mapping"] = models::rail_mapping_key(spec.fabric.rails);
  j["nodes_per_leaf"] = s.nodes_per_leaf;
  j["scalable_units"] = s.scalable_units;
  j["leaves"] = s.leaves;
  if (s.planes > 1) {
    // Keys of a fabric in planes only, so a one-plane fabric's object stays as it was.
    j["planes"] = s.planes;
    j["rails_per_plane"] = s.rails_per_plane;
  }
  j["spines"] = s.spines;
  j["uplinks_per_leaf"] = s.uplinks_per_leaf;
  j["uplinks_to_spine"] = s.uplinks_to_spine;
  const models::TierPorts used = models::ports_needed(spec.fabric, s.nodes, s.rails);
  nlohmann::ordered_json ports = {{"leaf", used.leaf}, {"spine", used.spine}};
  if (s.tiers == 3) {
    ports["core"] = used.core;
  }
  if (spec.fabric.switch_model) {
    ports["model"] = spec.fabric.switch_model->name;
    ports["has"] = models::ports_at(*spec.fabric.switch_model, spec.fabric.port_rate);
  }
  j["switch_ports"] = std::move(ports);
  if (spec.fabric.sharp) {
    j["sharp"] = {{"latency_ns", in_ns(spec.fabric.sharp->latency)}};
  }
  j["transport"] = transport_key(spec.fabric.transport);
  j["mtu_bytes"] = spec.fabric.mtu;
  j["line_rate_Gbps"] = s.line_rate.in_gbps();
  j["nic_line_rate_Gbps"] = s.nic_line_rate.in_gbps();
  j["wire_efficiency"] = s.wire_efficiency;
  j["node_port_rate_Gbps"] = s.node_port_rate.in_gbps();
  j["port_rate_Gbps"] = s.port_rate.in_gbps();
  j["leaf_downlink_GBps"] = s.leaf_downlink.in_gbytes_per_s();
  j["leaf_uplink_GBps"] = s.leaf_uplink.in_gbytes_per_s();
  j["oversubscription"] = s.oversubscription;
  j["requested_oversubscription"] = s.requested_oversubscription;
  if (s.tiers == 3) {
    // Keys of the third tier only, so a two-tier fabric's object stays as it was.
    j["tiers"] = s.tiers;
    j["units_per_pod"] = s.units_per_pod;
    j["pods"] = s.pods;
    j["spines_per_pod"] = s.spines_per_pod;
    j["cores"] = s.cores;
    if (s.planes > 1) {
      j["cores_per_plane"] = s.cores_per_plane;
    }
    j["uplinks_per_spine"] = s.uplinks_per_spine;
    j["uplinks_to_core"] = s.uplinks_to_core;
    j["core_port_rate_Gbps"] = s.core_port_rate.in_gbps();
    j["spine_downlink_GBps"] = s.spine_downlink.in_gbytes_per_s();
    j["spine_uplink_GBps"] = s.spine_uplink.in_gbytes_per_s();
    j["core_oversubscription"] = s.core_oversubscription;
    j["requested_core_oversubscription"] = s.requested_core_oversubscription;
  }
  j["bisection_GBps"] = s.bisection.in_gbytes_per_s();
  j["links"] = {{"node_port", s.node_port_links}, {"leaf_spine", s.leaf_spine_links}};
  if (s.tiers == 3) {
    j["links"]["spine_core"] = s.spine_core_links;
  }
  j["links"]["in_nodes"] = s.node_links;
  j["links"]["total"] = s.total_links;
  j["degraded_links"] = nlohmann::ordered_json::array();
  for (const models::DegradedLink& d : s.degraded) {
    j["degraded_links"].push_back({{"name", d.name},
                                   {"capacity_Gbps", d.capacity.in_gbps()},
                                   {"designed_Gbps", d.designed.in_gbps()}});
  }
  return j;
}

nlohmann::ordered_json links_json(const sim::FlowNetwork& network) {
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (std::uint32_t l = 0; l < network.link_count(); ++l) {
    const sim::LinkInfo link = network.link(sim::LinkId{l});
    links.push_back({{"name", link.name},
                     {"capacity_Gbps", link.capacity.in_gbps()},
                     {"latency_ns", in_ns(link.latency)}});
  }
  return links;
}

// The node as the scenario file --system reads: two of it on the default fabric, as a preset
// name gives, with the fabric's link layer that of the node's compute NICs.
nlohmann::ordered_json imported_system(const models::NodeSpec& node, const std::string& dump) {
  nlohmann::ordered_json doc;
  doc["name"] = node.name;
  doc["description"] = fmt::format(
      "railsim topo --import-nvidia-smi {}: check the models and rates marked (assumed)", dump);
  nlohmann::ordered_json system;
  system["node"] = models::scenario::node_json(node);
  system["nodes"] = 2;
  const auto compute = std::find_if(node.nics.begin(), node.nics.end(), [](const models::Nic& nic) {
    return nic.role == models::NicRole::kCompute;
  });
  if (compute != node.nics.end() && compute->transport == models::Transport::kRoce) {
    system["fabric"] = {{"transport", transport_key(compute->transport)}};
  }
  doc["system"] = std::move(system);
  return doc;
}

// A node the scenario reader would refuse, said in the dump's terms rather than the file's.
void check_simulable(const models::NodeSpec& node, const std::string& dump) {
  if (node.nics.empty()) {
    throw sim::InputError(fmt::format(
        "{}: expected NIC columns in the matrix (a simulated node reaches the fabric through a "
        "compute NIC), got GPUs only; run nvidia-smi topo -m where the NICs are visible",
        dump));
  }
  if (std::none_of(node.nics.begin(), node.nics.end(),
                   [](const models::Nic& nic) { return nic.role == models::NicRole::kCompute; })) {
    throw sim::InputError(fmt::format(
        "{}: expected a NIC that is up and of the fabric's link layer for the GPUs, got none "
        "(ibdev2netdev shows every NIC down or of another link layer)",
        dump));
  }
}

struct TopoOptions {
  std::string system;
  std::optional<int> nodes;
  OutputFormat format = OutputFormat::kText;
  bool list_links = false;
  bool import = false;  // --import-nvidia-smi: read `dump` instead of a system
  std::string dump;
  std::string ports_file;
  std::string like;  // --like: the preset whose models and rates an import takes
  std::string output;
  models::WorkLimit limit;  // --max-memory
  bool quiet = false;       // no progress line while a large system is built
};

// Everything is built and checked in memory first, so an error leaves no file behind.
int run_import(const TopoOptions& o, std::ostream& out) {
  const std::string& dump = o.dump;
  const std::string& ports_file = o.ports_file;
  const std::string& output = o.output;
  check_output_file(output, "-o", {dump, ports_file});
  const calibrate::parse::TextInput input = calibrate::parse::TextInput::from_file(dump);
  const calibrate::parse::NvidiaSmiTopo topo = calibrate::parse::parse_nvidia_smi_topo(input);
  std::optional<calibrate::parse::Ibdev2netdevOutput> ports;
  if (!ports_file.empty()) {
    ports =
        calibrate::parse::parse_ibdev2netdev(calibrate::parse::TextInput::from_file(ports_file));
  }
  const calibrate::parse::TopoImport imported = calibrate::parse::import_nvidia_smi_topo(
      topo, input.name(), ports ? &*ports : nullptr, o.like);
  check_simulable(imported.node, dump);
  const std::string text = imported_system(imported.node, dump).dump(2) + "\n";
  // What --system will read: a failure here is a writer bug, reported before anything is written.
  (void)models::scenario::read_system(
      models::scenario::parse_json(text, output.empty() ? "<stdout>" : output).root());
  for (const std::string& assumed : imported.assumed) {
    fmt::print(stderr, "railsim: warning: {}: not in the dump, assumed (check it): {}\n", dump,
               assumed);
  }
  for (const std::string& note : imported.notes) {
    fmt::print(stderr, "railsim: note: {}: {}\n", dump, note);
  }
  if (output.empty()) {
    out << text;
    return 0;
  }
  write_output_file(output, text, "-o");
  print_text(imported.node, models::topo_matrix(imported.node), out);
  fmt::print(out, "\nWrote {} (railsim topo --system {} reads it)\n", output, output);
  return 0;
}

// nullopt after --help. An import takes none of a system's options, and a system none of an
// import's.
std::optional<TopoOptions> parse_options(const std::vector<std::string>& args, std::ostream& out) {
  TopoOptions o;
  std::string format;
  int nodes = 0;
  po::options_description options(
      "railsim topo --system PRESET|FILE [--nodes N] [--format text|json|dot] [--links]\n"
      "railsim topo --import-nvidia-smi DUMP [--ibdev2netdev FILE] [--like PRESET] [-o "
      "OUT.json]");
  const std::string system_help =
      fmt::format("a node preset ({}; 2 nodes on the default fabric) or a system file (.json)",
                  fmt::join(models::node_preset_names(), ", "));
  options.add_options()("system", po::value(&o.system), system_help.c_str())(
      "nodes", po::value(&nodes), "nodes in the system, overriding the preset's 2 or the file's")(
      "format", po::value(&format)->default_value("text"),
      "text (as nvidia-smi topo -m, then the fabric), json or dot (Graphviz)")(
      "links", "also list every link: name, capacity, latency (the names faults refer to)")(
      "import-nvidia-smi", po::value(&o.dump),
      "infer a node from a saved `nvidia-smi topo -m` and write it as a system file")(
      "ibdev2netdev", po::value(&o.ports_file),
      "with --import-nvidia-smi: saved `ibdev2netdev [-v]` output (NIC states, link layers)")(
      "like", po::value(&o.like),
      "with --import-nvidia-smi: the preset whose GPU, CPU, NIC and NVLink figures the node "
      "takes (a B200 dump shows NV18 as an H100 one does); else chosen by the NVLink count")(
      "output,o", po::value(&o.output),
      "with --import-nvidia-smi: the file to write (then the matrix goes to stdout); stdout "
      "if absent");
  add_max_memory_option(options, o.limit);
  add_quiet_option(options, o.quiet);
  po::variables_map vm;
  if (!parse_command_line(args, options,
                          "Prints a server's GPU and NIC distance matrix as nvidia-smi topo -m "
                          "does, and the fabric's figures; or draws both for Graphviz.",
                          out, vm)) {
    return std::nullopt;
  }
  o.import = vm.count("import-nvidia-smi") > 0;
  if (o.import) {
    for (const char* other : {"system", "nodes", "format", "links", "max-memory", "quiet"}) {
      if (vm.count(other) > 0 && !vm[other].defaulted()) {
        throw sim::InputError(fmt::format(
            "--{}: not with --import-nvidia-smi (give the written file to --system)", other));
      }
    }
    return o;
  }
  for (const char* import_only : {"ibdev2netdev", "like", "output"}) {
    if (vm.count(import_only) > 0) {
      throw sim::InputError(fmt::format("--{}: only with --import-nvidia-smi", import_only));
    }
  }
  if (vm.count("system") == 0) {
    throw sim::InputError("expected --system PRESET|FILE or --import-nvidia-smi DUMP, got neither");
  }
  o.format = parse_format(format, kFormats);
  if (vm.count("nodes")) {
    o.nodes = nodes;
  }
  o.list_links = vm.count("links") > 0;
  return o;
}

// The system's matrix and fabric, in o.format.
int run_system(const TopoOptions& o, std::ostream& out) {
  models::scenario::SystemFile file = models::scenario::system_from_argument(o.system);
  if (o.nodes) {
    apply_nodes_option(file.system, *o.nodes, 1);
  }
  if (const std::optional<std::string> refusal =
          models::system_beyond_limit(o.limit, "this system", file.system)) {
    throw sim::InputError(fmt::format("{}: {}", o.nodes ? "--nodes" : file.file, *refusal));
  }
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  ProgressBar bar(static_cast<std::size_t>(file.system.nodes), progress_stream(o.quiet), "node");
  models::System system(file.system, network, [&bar] { bar.advance(); });
  bar.finish();
  models::scenario::apply_faults(file, system, network);
  const models::FabricSummary summary = models::summarize(system, network);
  const models::NodeSpec& node = system.spec().node;
  if (o.format == OutputFormat::kDot && summary.tiers == 3) {
    throw sim::InputError("--format dot draws two-tier fabrics only; use text or json");
  }
  if (o.format == OutputFormat::kDot) {
    print_dot(system, network, summary, out);
    return 0;
  }
  const models::TopoMatrix matrix = models::topo_matrix(node);
  if (o.format == OutputFormat::kJson) {
    nlohmann::ordered_json doc = matrix_json(node, matrix);
    doc["fabric"] = fabric_json(system.spec(), summary);
    if (o.list_links) {
      doc["links"] = links_json(network);
    }
    out << doc.dump(2) << "\n";
    return 0;
  }
  print_text(node, matrix, out);
  print_fabric_text(system.spec(), summary, out);
  if (o.list_links) {
    print_links_text(network, out);
  }
  return 0;
}

int run(const TopoOptions& o, std::ostream& out) {
  if (o.import) {
    return run_import(o, out);
  }
  return run_system(o, out);
}

}  // namespace

int run_topo(const std::vector<std::string>& args, std::ostream& out) {
  return parse_and_run(args, out, parse_options, run);
}

}  // namespace railsim::tools
