// File: models/scenario/node_file.cpp
// Inline nodes, read section by section in the order their references point (sockets, NUMA
// nodes, host bridges, switches, GPUs, NICs, NVLink), so each reference is checked where it is
// written. With a preset, the sections kept from it are then checked against those the file
// replaced, and such an error points at the replacement.
#include "models/scenario/node_file.hpp"

#include "models/hardware/node_presets.hpp"
#include "models/hardware/pcie.hpp"
#include "models/scenario/message_text.hpp"
#include "sim/assert.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::models::scenario {
namespace {

// Linux numbers NUMA nodes below MAX_NUMNODES, 1 << CONFIG_NODES_SHIFT with the shift at most 10.
constexpr std::int64_t kMaxNumaId = 1023;

using sim::at;

NodeSpec preset_at(const JsonValue& value) {
  const std::string name = value.as_string();
  try {
    return node_preset(name);
  } catch (const sim::InputError& e) {
    throw value.error(e.what());
  }
}

// The elements of a list that needs at least one.
std::vector<JsonValue> non_empty(const JsonValue& list, std::string_view noun) {
  std::vector<JsonValue> elements = list.elements();
  if (elements.empty()) {
    throw list.error(fmt::format("expected at least one {}", noun));
  }
  return elements;
}

sim::Bandwidth positive_rate(const JsonValue& value) {
  const sim::Bandwidth rate = value.as_bandwidth();
  if (!(rate.bytes_per_s > 0.0)) {
    throw value.error("expected a rate above zero");
  }
  return rate;
}

// A position in a list of `count` parts: "no GPU 9 (the node's GPUs are 0 to 7)".
int index_into(const JsonValue& value, std::size_t count, std::string_view noun) {
  RAILSIM_ASSERT(count > 0, "the lists positions point into are never empty");
  const std::int64_t index = value.as_integer(0);
  if (static_cast<std::uint64_t>(index) >= count) {
    throw value.error(
        fmt::format("no {0} {1} (the node's {0}s are 0 to {2})", noun, index, count - 1));
  }
  return static_cast<int>(index);
}

// "hb0" (host bridge 0) or "sw2" (PCIe switch 2), among `host_bridges` and `switches`.
PcieParent read_parent(const JsonValue& value, std::size_t host_bridges, std::size_t switches) {
  const std::string text = value.as_string();
  const std::string_view digits =
      std::string_view(text).substr(std::min<std::size_t>(2, text.size()));
  unsigned index = 0;
  const auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  const bool canonical = !digits.empty() && (digits.size() == 1 || digits[0] != '0');
  const bool bridge = text.starts_with("hb");
  if ((!bridge && !text.starts_with("sw")) || !canonical || status != std::errc{} ||
      end != digits.data() + digits.size()) {
    throw value.error(fmt::format(
        R"(expected a PCIe parent such as "hb0" (host bridge 0) or "sw2" (PCIe switch 2), got {})",
        quote(text)));
  }
  const std::size_t count = bridge ? host_bridges : switches;
  if (index < count) {
    return {bridge ? PcieParent::Kind::kHostBridge : PcieParent::Kind::kSwitch,
            static_cast<int>(index)};
  }
  const char* prefix = bridge ? "hb" : "sw";
  throw value.error(fmt::format(
      "no {} {} ({})", bridge ? "host bridge" : "PCIe switch", text,
      count == 0   ? "the node has none"
      : count == 1 ? fmt::format("the node has only {}0", prefix)
                   : fmt::format("the node has {}0 to {}{}", prefix, prefix, count - 1)));
}

PcieLink read_pcie_link(const JsonValue& value) {
  value.expect_keys({"generation", "lanes"});
  PcieLink link;
  link.generation = static_cast<int>(value.at("generation").as_integer(3, 6));
  const JsonValue lanes = value.at("lanes");
  link.lanes = static_cast<int>(lanes.as_integer(1, 16));
  try {
    (void)pcie_raw_bandwidth(link);
  } catch (const sim::InputError& e) {
    throw lanes.error(e.what());
  }
  return link;
}

std::vector<CpuSocket> read_sockets(const JsonValue& list) {
  const std::vector<JsonValue> elements = non_empty(list, "socket");
  std::vector<CpuSocket> sockets;
  sockets.reserve(elements.size());
  for (const JsonValue& socket : elements) {
    socket.expect_keys({"model", "memory_bandwidth"});
    sockets.push_back(
        {socket.at("model").as_string(), positive_rate(socket.at("memory_bandwidth"))});
  }
  return sockets;
}

std::optional<int> numa_with_id(const std::vector<NumaNode>& numa_nodes, int id) {
  for (std::size_t n = 0; n < numa_nodes.size(); ++n) {
    if (numa_nodes[n].id == id) {
      return static_cast<int>(n);
    }
  }
  return std::nullopt;
}

// An element without "id" takes its position as its id.
std::vector<NumaNode> read_numa_nodes(const JsonValue& list, std::size_t sockets) {
  const std::vector<JsonValue> elements = non_empty(list, "NUMA node");
  std::vector<NumaNode> numa_nodes;
  numa_nodes.reserve(elements.size());
  for (std::size_t n = 0; n < elements.size(); ++n) {
    const JsonValue& element = elements[n];
    element.expect_keys({"id", "socket", "cpus"});
    NumaNode numa;
    numa.id = static_cast<int>(n);
    const std::optional<JsonValue> id = element.find("id");
    if (id) {
      numa.id = static_cast<int>(id->as_integer(0, kMaxNumaId));
    }
    if (const std::optional<int> twin = numa_with_id(numa_nodes, numa.id)) {
      throw(id ? *id : element)
          .error(fmt::format("NUMA id {} is numa_nodes/{}'s already{}", numa.id, *twin,
                             id ? "" : R"( (an element without "id" takes its position))"));
    }
    numa.socket = index_into(element.at("socket"), sockets, "socket");
    numa.cpus = element.at("cpus").as_string();
    numa_nodes.push_back(std::move(numa));
  }
  return numa_nodes;
}

std::string numa_ids(const std::vector<NumaNode>& numa_nodes) {
  std::vector<int> ids;
  ids.reserve(numa_nodes.size());
  for (const NumaNode& numa : numa_nodes) {
    ids.push_back(numa.id);
  }
  return fmt::format("{}", fmt::join(ids, ", "));
}

std::vector<HostBridge> read_host_bridges(const JsonValue& list,
                                          const std::vector<NumaNode>& numa_nodes) {
  const std::vector<JsonValue> elements = non_empty(list, "host bridge");
  std::vector<HostBridge> bridges;
  bridges.reserve(elements.size());
  for (const JsonValue& bridge : elements) {
    bridge.expect_keys({"numa"});
    const JsonValue id = bridge.at("numa");
    const auto wanted = static_cast<int>(id.as_integer(0, kMaxNumaId));
    const std::optional<int> numa = numa_with_id(numa_nodes, wanted);
    if (!numa) {
      throw id.error(fmt::format("no NUMA node {} (the node's NUMA ids are {})", wanted,
                                 numa_ids(numa_nodes)));
    }
    bridges.push_back({*numa});
  }
  return bridges;
}

// Switches may name any switch of the list as parent, so a loop is possible and rejected at
// the parent of its first switch.
std::vector<PcieSwitch> read_switches(const JsonValue& list, std::size_t host_bridges) {
  const std::vector<JsonValue> elements = list.elements();
  std::vector<PcieSwitch> switches;
  switches.reserve(elements.size());
  for (const JsonValue& element : elements) {
    element.expect_keys({"parent", "uplink"});
    switches.push_back({read_parent(element.at("parent"), host_bridges, elements.size()),
                        read_pcie_link(element.at("uplink"))});
  }
  for (std::size_t s = 0; s < switches.size(); ++s) {
    std::vector<std::string> chain{fmt::format("sw{}", s)};
    chain.reserve(switches.size() + 1);
    PcieParent parent = switches[s].parent;
    while (parent.kind == PcieParent::Kind::kSwitch && chain.size() <= switches.size()) {
      chain.push_back(pcie_parent_name(parent));
      if (at(parent.index) == s) {
        throw elements[s].at("parent").error(
            fmt::format("sw{} is its own ancestor: {}", s, fmt::join(chain, " -> ")));
      }
      parent = switches[at(parent.index)].parent;
    }
  }
  return switches;
}

std::vector<Gpu> read_gpus(const JsonValue& list, std::size_t host_bridges, std::size_t switches) {
  const std::vector<JsonValue> elements = non_empty(list, "GPU");
  std::vector<Gpu> gpus;
  gpus.reserve(elements.size());
  for (const JsonValue& gpu : elements) {
    gpu.expect_keys({"model", "parent", "link", "c2c"});
    gpus.push_back({gpu.at("model").as_string(),
                    read_parent(gpu.at("parent"), host_bridges, switches),
                    read_pcie_link(gpu.at("link")), std::nullopt});
    if (const auto c2c = gpu.find("c2c")) {
      gpus.back().c2c = positive_rate(*c2c);
    }
  }
  return gpus;
}

// Verbs device names ("mlx5_0", "ibp24s0") stay within link names' alphabet: "n0.mlx5_0>leaf0".
bool is_device_name(std::string_view name) {
  if (name.empty()) {
    return false;
  }
  for (const char c : name) {
    const bool alphanumeric =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alphanumeric && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

Nic read_nic(const JsonValue& element,
             const std::vector<Nic>& before,
             std::size_t host_bridges,
             std::size_t switches) {
  if (const std::optional<JsonValue> transport = element.find("transport")) {
    // The System requires every compute NIC to speak the fabric's transport, and the presets'
    // NICs are VPI: the fabric sets the link layer of all of them.
    throw transport->error(
        R"(a NIC's link layer is set for the whole fabric by /system/fabric/transport)");
  }
  element.expect_keys({"name", "model", "parent", "link", "port_rate", "role", "gdr_capable",
                       "message_rate_per_qp", "processing_latency", "dma_read_latency"});
  Nic nic;
  const JsonValue name = element.at("name");
  nic.name = name.as_string();
  if (!is_device_name(nic.name)) {
    throw name.error(fmt::format(
        R"(expected a device name such as "mlx5_0" (letters, digits, "_" and "-"), got {})",
        quote(nic.name)));
  }
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (before[i].name == nic.name) {
      throw name.error(fmt::format("NIC name {} is nics/{}'s already", quote(nic.name), i));
    }
  }
  nic.model = element.at("model").as_string();
  nic.parent = read_parent(element.at("parent"), host_bridges, switches);
  nic.link = read_pcie_link(element.at("link"));
  nic.port_rate = positive_rate(element.at("port_rate"));
  if (const auto role = element.find("role")) {
    nic.role =
        role->as_enum<NicRole>({{"compute", NicRole::kCompute}, {"storage", NicRole::kStorage}});
  }
  if (const auto gdr = element.find("gdr_capable")) {
    nic.gdr_capable = gdr->as_bool();
  }
  if (const auto rate = element.find("message_rate_per_qp")) {
    nic.message_rate_per_qp = rate->as_number(0.0);
    if (!(nic.message_rate_per_qp > 0.0)) {
      throw rate->error("expected a message rate above zero");
    }
  }
  if (const auto latency = element.find("processing_latency")) {
    nic.processing_latency = latency->as_duration();
  }
  if (const auto latency = element.find("dma_read_latency")) {
    nic.dma_read_latency = latency->as_duration();
  }
  return nic;
}

std::vector<Nic> read_nics(const JsonValue& list, std::size_t host_bridges, std::size_t switches) {
  const std::vector<JsonValue> elements = non_empty(list, "NIC");
  std::vector<Nic> nics;
  nics.reserve(elements.size());
  bool compute = false;
  for (const JsonValue& element : elements) {
    nics.push_back(read_nic(element, nics, host_bridges, switches));
    compute = compute || nics.back().role == NicRole::kCompute;
  }
  if (!compute) {
    throw list.error(
        R"(no compute NIC: fabric traffic leaves a node through NICs with "role": "compute")");
  }
  return nics;
}

void read_bridged_pairs(const JsonValue& list, std::size_t gpus, NvlinkDomain& nvlink) {
  const std::vector<JsonValue> elements = non_empty(list, "bridged pair");
  nvlink.bridged_pairs.reserve(elements.size());
  for (std::size_t p = 0; p < elements.size(); ++p) {
    const JsonValue& pair = elements[p];
    if (!pair.is_array() || pair.size() != 2) {
      throw pair.error("expected a pair of GPUs such as [0, 1]");
    }
    const int a = index_into(pair.at(std::size_t{0}), gpus, "GPU");
    const int b = index_into(pair.at(std::size_t{1}), gpus, "GPU");
    if (a == b) {
      throw pair.error(fmt::format("GPU {} cannot be bridged to itself", a));
    }
    for (std::size_t q = 0; q < p; ++q) {
      const auto [x, y] = nvlink.bridged_pairs[q];
      if ((x == a && y == b) || (x == b && y == a)) {
        throw pair.error(fmt::format("GPUs {} and {} are bridged_pairs/{} already", a, b, q));
      }
    }
    nvlink.bridged_pairs.emplace_back(a, b);
  }
}

NvlinkDomain read_nvlink(const JsonValue& value, std::size_t gpus) {
  NvlinkDomain nvlink;
  nvlink.kind = value.at("kind").as_enum<NvlinkKind>({{"none", NvlinkKind::kNone},
                                                      {"switch", NvlinkKind::kSwitch},
                                                      {"bridge", NvlinkKind::kBridge}});
  switch (nvlink.kind) {
    case NvlinkKind::kNone:
      value.expect_keys({"kind"});
      return nvlink;
    case NvlinkKind::kSwitch:
      value.expect_keys({"kind", "links_per_gpu", "link_rate", "switch_count", "efficiency"});
      nvlink.switch_count = static_cast<int>(value.at("switch_count").as_integer(1, 64));
      break;
    case NvlinkKind::kBridge:
      value.expect_keys({"kind", "links_per_gpu", "link_rate", "bridged_pairs", "efficiency"});
      read_bridged_pairs(value.at("bridged_pairs"), gpus, nvlink);
      break;
  }
  nvlink.links_per_gpu = static_cast<int>(value.at("links_per_gpu").as_integer(1, 64));
  nvlink.link_rate = positive_rate(value.at("link_rate"));
  if (const auto efficiency = value.find("efficiency")) {
    nvlink.efficiency = efficiency->as_number(0.0, 1.0);
    if (!(nvlink.efficiency > 0.0)) {
      throw efficiency->error("expected an efficiency above 0 and at most 1");
    }
  }
  return nvlink;
}

// A part kept from the preset below `parent`, which the file's replacement of the host bridges
// or switches may no longer have.
void check_kept_parent(const JsonValue& node,
                       const NodeSpec& spec,
                       PcieParent parent,
                       const std::string& part,
                       std::string_view section) {
  const bool bridge = parent.kind == PcieParent::Kind::kHostBridge;
  if (at(parent.index) < (bridge ? spec.host_bridges.size() : spec.switches.size())) {
    return;
  }
  throw node.at(bridge ? "host_bridges" : "switches")
      .error(
          fmt::format(R"(the preset's {} hangs below {}, which this list lacks (replace "{}" too))",
                      part, pcie_parent_name(parent), section));
}

// The references of the sections kept from `preset` into those the file replaced in `spec`.
// Host bridges keep their NUMA node by id, as a file's would.
void check_kept_sections(const JsonValue& node, const NodeSpec& preset, NodeSpec& spec) {
  const auto kept = [&node](std::string_view section) { return !node.contains(section); };
  if (kept("numa_nodes")) {
    for (const NumaNode& numa : spec.numa_nodes) {
      if (at(numa.socket) >= spec.sockets.size()) {
        throw node.at("sockets").error(fmt::format(
            R"(the preset's NUMA node {} is on socket {}, which this list lacks (replace "numa_nodes" too))",
            numa.id, numa.socket));
      }
    }
  }
  if (kept("host_bridges")) {
    for (std::size_t b = 0; b < spec.host_bridges.size(); ++b) {
      const int id = preset.numa_nodes[at(preset.host_bridges[b].numa)].id;
      const std::optional<int> numa = numa_with_id(spec.numa_nodes, id);
      if (!numa) {
        throw node.at("numa_nodes")
            .error(fmt::format(
                R"(the preset's host bridge hb{} is on NUMA node {}, which this list lacks (replace "host_bridges" too))",
                b, id));
      }
      spec.host_bridges[b].numa = *numa;
    }
  }
  if (kept("switches")) {
    for (std::size_t s = 0; s < spec.switches.size(); ++s) {
      check_kept_parent(node, spec, spec.switches[s].parent, fmt::format("switch sw{}", s),
                        "switches");
    }
  }
  if (kept("gpus")) {
    for (std::size_t g = 0; g < spec.gpus.size(); ++g) {
      check_kept_parent(node, spec, spec.gpus[g].parent, fmt::format("GPU {}", g), "gpus");
    }
  }
  if (kept("nics")) {
    for (const Nic& nic : spec.nics) {
      check_kept_parent(node, spec, nic.parent, "NIC " + nic.name, "nics");
    }
  }
  if (kept("nvlink")) {
    for (const auto& [a, b] : spec.nvlink.bridged_pairs) {
      if (at(std::max(a, b)) >= spec.gpus.size()) {
        throw node.at("gpus").error(fmt::format(
            R"(the preset bridges GPUs {} and {}, which this list lacks (replace "nvlink" too))", a,
            b));
      }
    }
  }
}

// Every section replaces the preset's whole section; without a preset each is required but
// "description", "inter_socket" (for one socket), "switches" and "nvlink".
NodeSpec read_inline_node(const JsonValue& value) {
  value.expect_keys({"preset", "name", "description", "sockets", "inter_socket", "numa_nodes",
                     "host_bridges", "switches", "gpus", "nics", "nvlink", "trays"});
  const std::optional<JsonValue> preset_name = value.find("preset");
  const NodeSpec preset = preset_name ? preset_at(*preset_name) : NodeSpec{};
  NodeSpec node = preset;
  const auto section = [&](std::string_view key) {
    return preset_name ? value.find(key) : std::optional<JsonValue>(value.at(key));
  };
  if (const auto name = section("name")) {
    node.name = name->as_string();
    if (node.name.empty()) {
      throw name->error("expected a name such as \"l40s-pcie\", got \"\"");
    }
  }
  if (const auto description = value.find("description")) {
    node.description = description->as_string();
  }
  if (const auto sockets = section("sockets")) {
    node.sockets = read_sockets(*sockets);
  }
  if (const auto inter_socket = value.find("inter_socket")) {
    node.inter_socket = positive_rate(*inter_socket);
  } else if (!preset_name && node.sockets.size() > 1) {
    throw value.error(
        R"(missing key "inter_socket": the rate of the link between the sockets, such as "16GB/s")");
  }
  if (const auto numa_nodes = section("numa_nodes")) {
    node.numa_nodes = read_numa_nodes(*numa_nodes, node.sockets.size());
  }
  if (const auto host_bridges = section("host_bridges")) {
    node.host_bridges = read_host_bridges(*host_bridges, node.numa_nodes);
  }
  if (const auto switches = value.find("switches")) {
    node.switches = read_switches(*switches, node.host_bridges.size());
  }
  if (const auto gpus = section("gpus")) {
    node.gpus = read_gpus(*gpus, node.host_bridges.size(), node.switches.size());
  }
  if (const auto nics = section("nics")) {
    node.nics = read_nics(*nics, node.host_bridges.size(), node.switches.size());
  }
  if (const auto nvlink = value.find("nvlink")) {
    node.nvlink = read_nvlink(*nvlink, node.gpus.size());
  }
  if (const auto trays = value.find("trays")) {
    node.trays = static_cast<int>(trays->as_integer(1, 1024));
    if (node.sockets.size() % static_cast<std::size_t>(node.trays) != 0 ||
        (node.trays > 1 && node.nvlink.kind != NvlinkKind::kSwitch)) {
      throw trays->error(fmt::format(
          "expected a number of trays that divides the {} sockets (each tray's in turn) and an "
          "NVLink switch for their GPUs to share, got {}",
          node.sockets.size(), node.trays));
    }
  }
  if (preset_name) {
    check_kept_sections(value, preset, node);
  }
  return node;
}

}  // namespace

PcieParent read_pcie_parent(const JsonValue& value, const NodeSpec& node) {
  return read_parent(value, node.host_bridges.size(), node.switches.size());
}

NodeSpec read_node_spec(const JsonValue& value) {
  if (value.is_object()) {
    return read_inline_node(value);
  }
  if (!value.is_string()) {
    throw value.error(fmt::format(
        R"(expected a node preset such as "dgx-h100" or an object describing the node, got {})",
        value.is_array()  ? "an array"
        : value.is_bool() ? (value.as_bool() ? "true" : "false")
        : value.is_null() ? "null"
                          : fmt::format("a number ({})", value.as_number())));
  }
  return preset_at(value);
}

}  // namespace railsim::models::scenario
