// File: models/scenario/system_file.cpp
// The `system` section of a scenario file: read field by field, each value checked where it is
// written so that every error carries its JSON pointer. docs/scenarios.md is the schema.
#include "models/scenario/system_file.hpp"

#include "models/did_you_mean.hpp"
#include "models/fabric/cabling.hpp"
#include "models/fabric/fabric_presets.hpp"
#include "models/fabric/fabric_sizing.hpp"
#include "models/fabric/wire.hpp"
#include "models/hardware/node_presets.hpp"
#include "models/hardware/nvlink_domain.hpp"
#include "models/hardware/pcie.hpp"
#include "models/scenario/message_text.hpp"
#include "models/scenario/node_file.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <string_view>

namespace railsim::models::scenario {
namespace {

constexpr std::int64_t kMaxNodes = 100'000;

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// A preset name or an inline description (models/scenario/node_file.hpp).
NodeSpec read_node(const JsonValue& value) { return read_node_spec(value); }

// A leaf's or a spine's downlink : uplink capacity.
double read_oversubscription(const JsonValue& value) {
  const double ratio = value.as_ratio();
  if (!(ratio >= 1.0)) {
    throw value.error(fmt::format("expected a ratio of at least 1:1, got {}", ratio));
  }
  return ratio;
}

// "preset" first, so that the object's other keys override the preset's values.
void read_fabric_preset(const JsonValue& fabric, SystemSpec& system) {
  if (const auto v = fabric.find("preset")) {
    try {
      system.fabric = fabric_preset(v->as_string());
    } catch (const sim::InputError& e) {
      throw v->error(e.what());
    }
  }
}

// The keys of the tiers and planes, the third tier's meaning nothing to a two-tier fabric. A
// file that lays out the tiers or planes itself stops a preset's growth by radix.
void read_fabric_tiers(const JsonValue& fabric, FabricSpec& f) {
  for (const std::string_view key : {"tiers", "planes", "spines", "units_per_pod", "cores"}) {
    f.grows_by_radix = f.grows_by_radix && !fabric.find(key);
  }
  if (const auto v = fabric.find("tiers")) {
    f.tiers = static_cast<int>(v->as_integer(2, 3));
  }
  if (const auto v = fabric.find("planes")) {
    f.planes = static_cast<int>(v->as_integer(1, 64));
  }
  for (const std::string_view key : {"units_per_pod", "cores", "core_oversubscription"}) {
    const auto v = fabric.find(key);
    // A preset that grows decides its tiers when built: its third tier's oversubscription is
    // the file's to give (the other keys stop the growth, above).
    if (v && f.tiers != 3 && !f.grows_by_radix) {
      throw v->error(fmt::format(R"("{}" needs "tiers": 3)", key));
    }
  }
  if (const auto v = fabric.find("units_per_pod")) {
    f.units_per_pod = static_cast<int>(v->as_integer(1, 4096));
  }
  if (const auto v = fabric.find("cores")) {
    f.cores = static_cast<int>(v->as_integer(1, 4096));
  }
  if (const auto v = fabric.find("core_oversubscription")) {
    f.core_oversubscription = read_oversubscription(*v);
  }
}

// {"latency": "200ns"}: the switches reduce (SharpSpec). Only InfiniBand's Quantum switches do.
SharpSpec read_sharp(const JsonValue& sharp, const FabricSpec& f) {
  sharp.expect_keys({"latency"});
  if (const std::optional<std::string> problem = sharp_problem(f.transport, f.switch_model)) {
    throw sharp.error(*problem);
  }
  SharpSpec spec;
  if (const auto v = sharp.find("latency")) {
    spec.latency = v->as_duration();
  }
  return spec;
}

void read_fabric(const JsonValue& fabric, SystemSpec& system) {
  fabric.expect_keys({"preset",
                      "tiers",
                      "planes",
                      "transport",
                      "mtu",
                      "nodes_per_leaf",
                      "spines",
                      "oversubscription",
                      "units_per_pod",
                      "cores",
                      "core_oversubscription",
                      "port_rate",
                      "switch",
                      "switch_latency",
                      "cable_latency",
                      "rails",
                      "rail_seed",
                      "cabling",
                      "routing",
                      "ecmp_seed",
                      "sharp"});
  read_fabric_preset(fabric, system);
  FabricSpec& f = system.fabric;
  read_fabric_tiers(fabric, f);
  if (const auto v = fabric.find("transport")) {
    f.transport = v->as_enum<Transport>(
        {{"infiniband", Transport::kInfiniband}, {"rocev2", Transport::kRoce}});
  }
  if (const auto v = fabric.find("mtu")) {
    f.mtu = static_cast<int>(v->as_integer(256, 9000));
    try {
      (void)wire_efficiency(f.transport, f.mtu);
    } catch (const sim::InputError& e) {
      throw v->error(e.what());
    }
  }
  if (const auto v = fabric.find("nodes_per_leaf")) {
    f.nodes_per_leaf = static_cast<int>(v->as_integer(1, 1024));
  }
  if (const auto v = fabric.find("spines")) {
    f.spines = static_cast<int>(v->as_integer(1, 4096));
  }
  if (const auto v = fabric.find("oversubscription")) {
    f.oversubscription = read_oversubscription(*v);
  }
  if (const auto v = fabric.find("port_rate")) {
    f.port_rate = v->as_bandwidth();
    if (!(f.port_rate.bytes_per_s > 0.0)) {
      throw v->error("expected a rate above zero");
    }
  }
  if (const auto v = fabric.find("switch")) {
    try {
      f.switch_model = switch_model_named(v->as_string());
    } catch (const sim::InputError& e) {
      throw v->error(e.what());
    }
  }
  if (const auto v = fabric.find("switch_latency")) {
    f.switch_latency = v->as_duration();
  }
  if (const auto v = fabric.find("cable_latency")) {
    f.cable_latency = v->as_duration();
  }
  if (const auto v = fabric.find("rails")) {
    f.rails = v->as_enum<RailMapping>({{"aligned", RailMapping::kAligned},
                                       {"misaligned", RailMapping::kMisaligned},
                                       {"explicit", RailMapping::kExplicit},
                                       {"top-of-rack", RailMapping::kTopOfRack}});
  }
  if (const auto v = fabric.find("rail_seed")) {
    f.rail_seed = static_cast<std::uint64_t>(v->as_integer(0));
  }
  if (const auto v = fabric.find("routing")) {
    f.routing = v->as_enum<Routing>({{"ecmp", Routing::kEcmp}, {"adaptive", Routing::kAdaptive}});
  }
  if (const auto v = fabric.find("ecmp_seed")) {
    f.ecmp_seed = static_cast<std::uint64_t>(v->as_integer(0));
  }
  if (const auto v = fabric.find("sharp")) {
    f.sharp = read_sharp(*v, f);
  }
  const auto rails = static_cast<int>(compute_nic_indices(system.node).size());
  if (f.rails == RailMapping::kTopOfRack) {
    if (const auto problem = top_of_rack_problem(f.nodes_per_leaf, f.planes, rails)) {
      throw fabric.at("rails").error(*problem);
    }
  }
  const std::optional<JsonValue> cabling = fabric.find("cabling");
  if (f.rails != RailMapping::kExplicit) {
    if (cabling) {
      throw cabling->error(R"(a cabling table needs "rails": "explicit")");
    }
    return;
  }
  if (!cabling) {
    throw fabric.error(R"("rails": "explicit" needs a "cabling" table: one row of rails per node)");
  }
  const std::vector<JsonValue> rows = cabling->elements();
  for (const JsonValue& row : rows) {
    std::vector<int> cells;
    for (const JsonValue& cell : row.elements()) {
      cells.push_back(static_cast<int>(cell.as_integer(-1'000'000, 1'000'000)));
    }
    f.cabling.push_back(std::move(cells));
  }
  if (const auto problem = find_cabling_problem(f.cabling, system.nodes, rails)) {
    if (problem->node < 0) {
      throw cabling->error(problem->message);
    }
    const JsonValue row = cabling->at(static_cast<std::size_t>(problem->node));
    throw(problem->nic < 0 ? row : row.at(static_cast<std::size_t>(problem->nic)))
        .error(problem->message);
  }
}

}  // namespace

std::pair<int, std::string> read_node_element(const JsonValue& where, int nodes) {
  const std::string text = where.as_string();
  const auto dot = text.find('.');
  int node = -1;
  if (text.size() > 1 && text[0] == 'n' && dot != std::string::npos && dot + 1 < text.size()) {
    try {
      std::size_t used = 0;
      node = std::stoi(text.substr(1, dot - 1), &used);
      node = used == dot - 1 ? node : -1;
    } catch (const std::logic_error&) {
      node = -1;
    }
  }
  if (node < 0 || node >= nodes) {
    throw where.error(fmt::format("expected an element such as \"n0.gpu3\" (node 0 to {}), got {}",
                                  nodes - 1, quote(text)));
  }
  return {node, text.substr(dot + 1)};
}

namespace {

// {"pcie": "n0.gpu3", "generation": 4, "lanes": 8}: both directions of that element's PCIe
// link trained down, as two link faults.
void read_pcie_fault(const JsonValue& fault,
                     const SystemSpec& system,
                     std::vector<LinkFault>& out) {
  fault.expect_keys({"pcie", "generation", "lanes"});
  const JsonValue where = fault.at("pcie");
  const auto [node, element] = read_node_element(where, system.nodes);
  PcieLink link;
  link.generation = static_cast<int>(fault.at("generation").as_integer(3, 6));
  link.lanes = static_cast<int>(fault.at("lanes").as_integer(1, 16));
  sim::Bandwidth rate;
  try {
    rate = pcie_effective_bandwidth(link, system.node.pcie_efficiency);
  } catch (const sim::InputError& e) {
    throw fault.at("lanes").error(e.what());
  }
  std::pair<std::string, std::string> names;
  try {
    names = pcie_link_names(system.node, node, element);
  } catch (const sim::InputError& e) {
    throw where.error(e.what());
  }
  for (const std::string& name : {names.first, names.second}) {
    out.push_back({name, 1.0, rate, false, fault.json_pointer(), std::nullopt});
  }
}

// {"nvswitch": NODE, "chips_down": K}: K of the node's NVSwitch chips lost (a GB200 NVL72 switch
// tray holds 2 of its 18). Each GPU has a link to every chip (NVL72's 18 links to 18 chips), so
// each GPU's port keeps (chips - K) / chips of its rate, both directions: the port links scaled.
void read_nvswitch_fault(const JsonValue& fault,
                         const SystemSpec& system,
                         std::vector<LinkFault>& out) {
  fault.expect_keys({"nvswitch", "chips_down"});
  const auto node = static_cast<int>(fault.at("nvswitch").as_integer(0, system.nodes - 1));
  const NvlinkDomain& nvlink = system.node.nvlink;
  if (nvlink.kind != NvlinkKind::kSwitch) {
    throw fault.at("nvswitch")
        .error(fmt::format("{} has no NVSwitch to lose chips of", system.node.name));
  }
  const JsonValue down = fault.at("chips_down");
  const auto chips = static_cast<int>(down.as_integer(1, nvlink.switch_count));
  if (chips == nvlink.switch_count) {
    throw down.error(fmt::format(
        "all {} chips down leaves the GPUs no NVLink, which NCCL does not run on; expected 1 "
        "to {}",
        chips, nvlink.switch_count - 1));
  }
  const double keep =
      static_cast<double>(nvlink.switch_count - chips) / static_cast<double>(nvlink.switch_count);
  for (std::size_t g = 0; g < system.node.gpus.size(); ++g) {
    for (const std::string& name : {fmt::format("n{}.gpu{}>n{}.nvswitch", node, g, node),
                                    fmt::format("n{}.nvswitch>n{}.gpu{}", node, node, g)}) {
      out.push_back({name, keep, {}, false, fault.json_pointer(), std::nullopt});
    }
  }
}

// "from", "for", "every" and "times" of a timed fault.
FaultSchedule read_schedule(const JsonValue& fault) {
  FaultSchedule schedule;
  if (const auto v = fault.find("from")) {
    schedule.from = v->as_duration();
  }
  if (const auto v = fault.find("for")) {
    schedule.length = v->as_duration();
    if (*schedule.length <= sim::Duration{}) {
      throw v->error("expected a duration above zero");
    }
  }
  const auto every = fault.find("every");
  const auto times = fault.find("times");
  if (every.has_value() != times.has_value()) {
    throw fault.error(R"(a repeating fault needs both "every" (such as "10ms") and "times")");
  }
  if (every) {
    if (!schedule.length) {
      throw every->error(R"(a repeating fault needs "for": how long each window lasts)");
    }
    schedule.every = every->as_duration();
    if (*schedule.every <= *schedule.length) {
      throw every->error(R"(expected a period longer than "for")");
    }
    schedule.times = static_cast<int>(times->as_integer(1, 100'000));
  }
  return schedule;
}

}  // namespace

void read_fault(const JsonValue& fault,
                const SystemSpec& system,
                bool timed,
                std::vector<LinkFault>& out) {
  if (fault.contains("pcie")) {
    read_pcie_fault(fault, system, out);
    return;
  }
  if (fault.contains("nvswitch")) {
    read_nvswitch_fault(fault, system, out);
    return;
  }
  if (timed) {
    fault.expect_keys({"link", "rate_scale", "rate", "down", "from", "for", "every", "times"});
  } else {
    fault.expect_keys({"link", "rate_scale", "rate", "down"});
  }
  LinkFault f;
  f.link = fault.at("link").as_string();
  f.json_pointer = fault.json_pointer();
  const std::optional<JsonValue> scale = fault.find("rate_scale");
  const std::optional<JsonValue> rate = fault.find("rate");
  const std::optional<JsonValue> down = fault.find("down");
  if (int{scale.has_value()} + int{rate.has_value()} + int{down.has_value()} != 1) {
    throw fault.error(
        R"(expected exactly one of "rate_scale" (such as 0.5), "rate" (such as "200Gbps") or )"
        R"("down": true)");
  }
  const bool scheduled = timed && (fault.contains("from") || fault.contains("for") ||
                                   fault.contains("every") || fault.contains("times"));
  if (down) {
    if (!down->as_bool()) {
      throw down->error(R"(expected true (leave the fault out for a link that is up))");
    }
    if (scheduled) {
      // Rerouting flows already in flight is not modelled: a route is fixed when a flow starts.
      throw down->error(
          R"(a link cannot go down mid-run; give a timed fault a "rate_scale" or "rate")");
    }
    f.down = true;
    out.push_back(std::move(f));
    return;
  }
  if (scale) {
    f.rate_scale = scale->as_number(0.0, 1.0);
    if (!(f.rate_scale > 0.0)) {
      throw scale->error(
          R"(expected a scale above 0 and at most 1, got 0 (a link out of service is "down": true))");
    }
  } else {
    f.rate = rate->as_bandwidth();
    if (!(f.rate.bytes_per_s > 0.0)) {
      throw rate->error(R"(expected a rate above zero (a link out of service is "down": true))");
    }
  }
  if (scheduled) {
    f.schedule = read_schedule(fault);
  }
  out.push_back(std::move(f));
}

SystemFile read_system(const JsonValue& root) {
  root.expect_keys({"name", "description", "system", "workload", "step", "jobs", "background"});
  SystemFile out;
  out.file = root.file();
  if (const auto name = root.find("name")) {
    out.name = name->as_string();
  }
  if (const auto description = root.find("description")) {
    description->as_string();
  }
  const JsonValue system = root.at("system");
  system.expect_keys({"node", "nodes", "fabric", "gdr_level", "gdr_off_nodes", "ib_hca", "faults"});
  SystemSpec& spec = out.system;
  spec.node = read_node(system.at("node"));
  if (out.name.empty()) {
    out.name = spec.node.name;
  }
  // Counted in compute trays where the node is an NVLink domain of several (nvlink_domain.hpp).
  const JsonValue nodes = system.at("nodes");
  const auto trays = static_cast<int>(nodes.as_integer(spec.node.trays, kMaxNodes));
  try {
    spec.nodes = domains_for_trays(spec.node, trays);
  } catch (const sim::InputError& e) {
    throw nodes.error(e.what());
  }
  if (const auto fabric = system.find("fabric")) {
    read_fabric(*fabric, spec);
    const auto rails = static_cast<int>(compute_nic_indices(spec.node).size());
    try {
      // Grown here for what the file describes; a System grows it again for another node count.
      spec.fabric = built_fabric(spec.fabric, spec.nodes, rails);
    } catch (const sim::InputError& e) {
      const auto planes = fabric->find("planes");
      throw(planes && rails % spec.fabric.planes != 0 ? *planes : *fabric).error(e.what());
    }
  }
  // Presets' compute NICs are VPI (InfiniBand or Ethernet): the fabric sets their link layer.
  for (Nic& nic : spec.node.nics) {
    nic.transport = spec.fabric.transport;
  }
  if (const auto v = system.find("gdr_level")) {
    spec.gdr_level = v->as_enum<PathClass>({{"LOC", PathClass::kSelf},
                                            {"PIX", PathClass::kPix},
                                            {"PXB", PathClass::kPxb},
                                            {"PHB", PathClass::kPhb},
                                            {"NODE", PathClass::kNode},
                                            {"SYS", PathClass::kSys}});
  }
  if (const auto v = system.find("ib_hca")) {
    try {
      spec.ib_hca = parse_ib_hca(v->as_string());
      check_ib_hca(*spec.ib_hca, spec.node);
    } catch (const sim::InputError& e) {
      throw v->error(e.what());
    }
  }
  if (const auto v = system.find("gdr_off_nodes")) {
    for (const JsonValue& node : v->elements()) {
      spec.gdr_off_nodes.push_back(static_cast<int>(node.as_integer(0, spec.nodes - 1)));
    }
  }
  if (const auto v = system.find("faults")) {
    for (const JsonValue& fault : v->elements()) {
      read_fault(fault, spec, false, out.faults);
    }
  }
  return out;
}

SystemFile load_system_file(const std::string& path) {
  const JsonDocument document = load_json_file(path);
  return read_system(document.root());
}

SystemFile system_from_argument(const std::string& preset_or_file) {
  if (ends_with(preset_or_file, ".json")) {
    return load_system_file(preset_or_file);
  }
  SystemFile out;
  out.name = preset_or_file;
  out.system.node = node_preset(preset_or_file);
  out.system.nodes = 2;
  return out;
}

sim::LinkId fault_link(const std::string& file,
                       const LinkFault& fault,
                       const sim::FlowNetwork& network) {
  if (const std::optional<sim::LinkId> link = network.find_link(fault.link)) {
    return *link;
  }
  std::vector<std::string_view> names;
  names.reserve(network.link_count());
  for (std::uint32_t l = 0; l < network.link_count(); ++l) {
    names.emplace_back(network.link(sim::LinkId{l}).name);
  }
  throw ScenarioError(file, fault.json_pointer + "/link",
                      fmt::format("no link named {}{} (railsim topo --links lists them)",
                                  quote(fault.link), did_you_mean_quoted(fault.link, names)));
}

void apply_faults(const SystemFile& file, System& system, sim::FlowNetwork& network) {
  try {
    apply_link_faults(
        file.faults, [&](const LinkFault& fault) { return fault_link(file.file, fault, network); },
        system, network);
  } catch (const LinkFaultError& e) {
    throw ScenarioError(file.file, e.json_pointer() + "/link", e.what());
  }
}

void schedule_faults(const std::string& file,
                     const std::vector<LinkFault>& faults,
                     sim::FlowNetwork& network,
                     sim::Simulator& simulator) {
  schedule_link_faults(
      faults, [&](const LinkFault& fault) { return fault_link(file, fault, network); }, network,
      simulator);
}

}  // namespace railsim::models::scenario
