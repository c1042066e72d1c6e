// File: models/system/system.cpp
// Building the links of a System and routing across them. Boost.Graph holds the fabric's
// switches, so equal-cost next hops come from breadth-first distances, whatever the tiers.
#include "models/system/system.hpp"

#include "models/fabric/cabling.hpp"
#include "models/fabric/wire.hpp"
#include "models/hardware/pcie.hpp"
#include "sim/assert.hpp"
#include "sim/hash_mix.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

namespace railsim::models {
namespace {

using SwitchGraph = boost::adjacency_list<boost::vecS,
                                          boost::vecS,
                                          boost::bidirectionalS,
                                          boost::no_property,
                                          boost::property<boost::edge_name_t, std::uint32_t>>;

using sim::at;

constexpr int kUnreachable = 1 << 30;

// Up and down links between a PCIe element and its parent.
struct Attachment {
  sim::LinkId up;
  sim::LinkId down;
};

// What a link is, for the queries of System and the links that may go down.
enum class LinkRole : std::uint8_t { kInNode, kHostMemory, kNodePort, kLeafSpine, kSpineCore };

// A fabric switch as adaptive lanes see it (system.hpp).
struct Switch {
  int tier = 0;      // 0 leaf, 1 spine, 2 core
  int position = 0;  // spines: index within the pod; leaves and cores: their index
  int fan_out = 0;   // distinct switches its uplinks reach
};

constexpr int kTiers = 3;

}  // namespace

struct System::Impl {
  struct NodeLinks {
    std::vector<Attachment> gpus;
    std::vector<Attachment> nics;
    std::vector<Attachment> switches;
    std::vector<sim::LinkId> memory;                            // per socket
    std::map<std::pair<int, int>, sim::LinkId> socket_links;    // (from, to)
    std::vector<Attachment> ports;                              // per compute NIC: up = NIC to leaf
    std::vector<Attachment> nvswitch_ports;                     // per GPU: up = GPU to NVSwitch
    std::map<std::pair<int, int>, sim::LinkId> nvlink_bridges;  // (from GPU, to GPU)
  };

  sim::FlowNetwork& net;
  std::vector<NodeLinks> nodes;
  std::vector<std::vector<int>> rail;  // [node][compute nic]
  int rails = 0;
  int units = 0;          // scalable units: leaves per rail
  int units_per_pod = 0;  // all units with two tiers: one pod
  int pods = 0;
  int spine_uplinks = 0;  // per spine, three tiers only
  SwitchGraph graph;
  std::vector<Switch> switches;                // by graph vertex
  std::vector<std::vector<int>> hops_to_leaf;  // [leaf][switch vertex], over links not down
  std::vector<bool> down_links;                // by link index
  std::vector<LinkRole> roles;                 // by link index
  std::vector<Attachment> cables;              // by link index: both directions of its cable
  std::vector<bool> built;                     // by node

  // The links of node `n`, which must be built.
  const NodeLinks& links_of(int n) const {
    RAILSIM_ASSERT(built.at(at(n)), "a route or a port of a node that is not built");
    return nodes[at(n)];
  }

  explicit Impl(sim::FlowNetwork& network) : net(network) {}

  sim::LinkId add(sim::Bandwidth capacity,
                  sim::Duration latency,
                  std::string name,
                  LinkRole role = LinkRole::kInNode) {
    const sim::LinkId id = net.add_link({capacity, latency, std::move(name)});
    roles.resize(id.index + 1, LinkRole::kInNode);
    roles[id.index] = role;
    return id;
  }

  Attachment attach(sim::Bandwidth capacity, const std::string& child, const std::string& parent) {
    return {add(capacity, sim::Duration::zero(), child + ">" + parent),
            add(capacity, sim::Duration::zero(), parent + ">" + child)};
  }

  // A cable between two switch vertices, both directions, as links and graph edges; `upper`
  // names the upper switch's end with the lower switch's port ("spine1.5").
  void cable(std::size_t lower_vertex,
             std::size_t upper_vertex,
             const std::string& lower,
             const std::string& upper,
             sim::Bandwidth rate,
             sim::Duration hop,
             LinkRole role) {
    const sim::LinkId up = add(rate, hop, lower + ">" + upper, role);
    const sim::LinkId down = add(rate, hop, upper + ">" + lower, role);
    pair_cable({up, down});
    boost::add_edge(lower_vertex, upper_vertex, up.index, graph);
    boost::add_edge(upper_vertex, lower_vertex, down.index, graph);
  }

  void pair_cable(Attachment cable) {
    cables.resize(net.link_count(), Attachment{});
    cables[cable.up.index] = cable;
    cables[cable.down.index] = cable;
  }

  bool has_role(sim::LinkId link, LinkRole role) const {
    return link.index < roles.size() && roles[link.index] == role;
  }

  int pod_of_leaf(std::size_t leaf) const { return static_cast<int>(leaf) % units / units_per_pod; }
};

namespace {

std::string parent_name(int node, const PcieParent& parent) {
  return fmt::format("n{}.{}", node, pcie_parent_name(parent));
}

}  // namespace

namespace {

// Where a node's GPU ("gpu3"), NIC (by name) or, with `switches`, PCIe switch ("sw2") hangs:
// its parent, to read or to change; null for an element the node does not have.
template <class Node>
auto parent_of(Node& node, std::string_view element, bool switches)
    -> decltype(&node.gpus[0].parent) {
  for (std::size_t g = 0; g < node.gpus.size(); ++g) {
    if (element == fmt::format("gpu{}", g)) {
      return &node.gpus[g].parent;
    }
  }
  for (auto& nic : node.nics) {
    if (element == nic.name) {
      return &nic.parent;
    }
  }
  for (std::size_t s = 0; switches && s < node.switches.size(); ++s) {
    if (element == fmt::format("sw{}", s)) {
      return &node.switches[s].parent;
    }
  }
  return nullptr;
}

}  // namespace

std::pair<std::string, std::string> pcie_link_names(const NodeSpec& node,
                                                    int node_index,
                                                    std::string_view element) {
  const PcieParent* parent = parent_of(node, element, true);
  if (!parent) {
    throw sim::InputError(fmt::format(
        "node {} of {} has no PCIe element '{}' (expected gpuN, swN or a NIC such as {})",
        node_index, node.name, element, node.nics.empty() ? "mlx5_0" : node.nics.front().name));
  }
  const std::string child = fmt::format("n{}.{}", node_index, element);
  const std::string above = parent_name(node_index, *parent);
  return {child + ">" + above, above + ">" + child};
}

void move_pcie_device(SystemSpec& spec, int node, std::string_view element, PcieParent parent) {
  if (node < 0 || node >= spec.nodes) {
    throw sim::InputError(
        fmt::format("node {}: the system has nodes 0 to {}", node, spec.nodes - 1));
  }
  const auto variant = spec.node_variants.find(node);
  NodeSpec moved = variant == spec.node_variants.end() ? spec.node : variant->second;
  const std::size_t parents = parent.kind == PcieParent::Kind::kHostBridge
                                  ? moved.host_bridges.size()
                                  : moved.switches.size();
  if (parent.index < 0 || at(parent.index) >= parents) {
    throw sim::InputError(
        fmt::format("node {} of {} has no {}", node, moved.name, parent_name(node, parent)));
  }
  PcieParent* slot = parent_of(moved, element, false);
  if (!slot) {
    throw sim::InputError(fmt::format(
        "node {} of {} has no GPU or NIC '{}' (expected gpuN or a NIC such as {})", node,
        moved.name, element, moved.nics.empty() ? "mlx5_0" : moved.nics.front().name));
  }
  *slot = parent;
  spec.node_variants[node] = std::move(moved);
}

namespace {

std::vector<std::vector<int>> cable_rails(const SystemSpec& spec, int rails) {
  const FabricSpec& fabric = spec.fabric;
  std::vector<std::vector<int>> rail(at(spec.nodes));
  for (int n = 0; n < spec.nodes; ++n) {
    rail[at(n)].resize(at(rails));
    std::iota(rail[at(n)].begin(), rail[at(n)].end(), 0);
  }
  if (fabric.rails == RailMapping::kMisaligned) {
    // Fisher-Yates with the engine's own draws, so every platform cables alike.
    std::uint64_t state = fabric.rail_seed;
    for (auto& row : rail) {
      for (std::size_t i = row.size() - 1; i > 0; --i) {
        state = sim::hash_mix(state, i);
        std::swap(row[i], row[state % (i + 1)]);
      }
    }
  }
  if (fabric.rails == RailMapping::kExplicit) {
    if (const auto problem = find_cabling_problem(fabric.cabling, spec.nodes, rails)) {
      throw sim::InputError(
          problem->node < 0  ? "cabling: " + problem->message
          : problem->nic < 0 ? fmt::format("cabling: node {}: {}", problem->node, problem->message)
                             : fmt::format("cabling: node {} NIC {}: {}", problem->node,
                                           problem->nic, problem->message));
    }
    rail = fabric.cabling;
  }
  return rail;
}

std::vector<std::string> compute_nic_names(const NodeSpec& node) {
  std::vector<std::string> names;
  for (const int i : compute_nic_indices(node)) {
    names.push_back(node.nics[at(i)].name);
  }
  return names;
}

// A variant keeps what the collectives' layout and the rails are built on: the design's GPUs,
// NVLink and compute NICs.
void check_variant(const NodeSpec& design, int nodes, int index, const NodeSpec& variant) {
  if (index < 0 || index >= nodes) {
    throw sim::InputError(
        fmt::format("node variant {}: the system has nodes 0 to {}", index, nodes - 1));
  }
  if (variant.gpus.size() != design.gpus.size() || variant.nvlink.kind != design.nvlink.kind ||
      compute_nic_names(variant) != compute_nic_names(design)) {
    throw sim::InputError(fmt::format(
        "node {}: its variant of {} must keep the design's {} GPUs, NVLink and compute NICs ({})",
        index, design.name, design.gpus.size(), fmt::join(compute_nic_names(design), ", ")));
  }
}

}  // namespace

System::System(SystemSpec spec, sim::FlowNetwork& network)
    : spec_(std::move(spec)), impl_(std::make_unique<Impl>(network)) {
  const NodeSpec& design = spec_.node;
  const FabricSpec& fabric = spec_.fabric;
  if (spec_.nodes < 1) {
    throw sim::InputError(fmt::format("nodes: {}, expected at least 1", spec_.nodes));
  }
  if (fabric.nodes_per_leaf < 1 || fabric.spines < 1 || !(fabric.oversubscription >= 1.0)) {
    throw sim::InputError(
        "fabric: expected nodes_per_leaf >= 1, spines >= 1 and oversubscription >= 1");
  }
  if (fabric.tiers != 2 && fabric.tiers != 3) {
    throw sim::InputError(fmt::format("fabric: {} tiers, expected 2 or 3", fabric.tiers));
  }
  if (fabric.tiers == 3 &&
      (fabric.units_per_pod < 1 || fabric.cores < 1 || !(fabric.core_oversubscription >= 1.0))) {
    throw sim::InputError(
        "fabric: three tiers expect units_per_pod >= 1, cores >= 1 and core_oversubscription >= 1");
  }
  compute_nics_ = compute_nic_indices(design);
  if (compute_nics_.empty()) {
    throw sim::InputError("node '" + design.name + "' has no compute NIC");
  }
  for (const auto& [n, variant] : spec_.node_variants) {
    check_variant(design, spec_.nodes, n, variant);
  }
  Impl& m = *impl_;
  m.built.assign(at(spec_.nodes), spec_.built_nodes.empty());
  for (const int n : spec_.built_nodes) {
    if (n < 0 || n >= spec_.nodes) {
      throw sim::InputError(
          fmt::format("built node {}: the system has nodes 0 to {}", n, spec_.nodes - 1));
    }
    m.built[at(n)] = true;
  }
  m.rails = static_cast<int>(compute_nics_.size());
  m.units = (spec_.nodes + fabric.nodes_per_leaf - 1) / fabric.nodes_per_leaf;
  m.units_per_pod = fabric.tiers == 3 ? fabric.units_per_pod : m.units;
  m.pods = (m.units + m.units_per_pod - 1) / m.units_per_pod;
  m.rail = cable_rails(spec_, m.rails);

  // Every node: PCIe, host memory, the socket links and NVLink.
  for (int n = 0; n < spec_.nodes; ++n) {
    const NodeSpec& node = node_spec(n);
    Impl::NodeLinks links;
    if (!m.built[at(n)]) {
      m.nodes.push_back(std::move(links));
      continue;
    }
    for (std::size_t s = 0; s < node.switches.size(); ++s) {
      const PcieSwitch& sw = node.switches[s];
      links.switches.push_back(m.attach(pcie_effective_bandwidth(sw.uplink, node.pcie_efficiency),
                                        fmt::format("n{}.sw{}", n, s), parent_name(n, sw.parent)));
    }
    for (std::size_t g = 0; g < node.gpus.size(); ++g) {
      links.gpus.push_back(
          m.attach(pcie_effective_bandwidth(node.gpus[g].link, node.pcie_efficiency),
                   fmt::format("n{}.gpu{}", n, g), parent_name(n, node.gpus[g].parent)));
    }
    for (const Nic& nic : node.nics) {
      links.nics.push_back(m.attach(pcie_effective_bandwidth(nic.link, node.pcie_efficiency),
                                    fmt::format("n{}.{}", n, nic.name),
                                    parent_name(n, nic.parent)));
    }
    for (std::size_t s = 0; s < node.sockets.size(); ++s) {
      links.memory.push_back(m.add(node.sockets[s].memory_bandwidth, sim::Duration::zero(),
                                   fmt::format("n{}.mem{}", n, s), LinkRole::kHostMemory));
      for (std::size_t t = 0; t < node.sockets.size(); ++t) {
        if (s != t) {
          links.socket_links[{static_cast<int>(s), static_cast<int>(t)}] = m.add(
              node.inter_socket, sim::Duration::zero(), fmt::format("n{}.cpu{}>cpu{}", n, s, t));
        }
      }
    }
    const NvlinkDomain& nvlink = node.nvlink;
    const sim::Bandwidth nvlink_rate =
        nvlink.link_rate * (nvlink.links_per_gpu * nvlink.efficiency);
    if (nvlink.kind == NvlinkKind::kSwitch) {
      for (std::size_t g = 0; g < node.gpus.size(); ++g) {
        links.nvswitch_ports.push_back(
            m.attach(nvlink_rate, fmt::format("n{}.gpu{}", n, g), fmt::format("n{}.nvswitch", n)));
      }
    }
    for (const auto& [a, b] : nvlink.kind == NvlinkKind::kBridge
                                  ? nvlink.bridged_pairs
                                  : std::vector<std::pair<int, int>>{}) {
      for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
        links.nvlink_bridges[{from, to}] =
            m.add(nvlink_rate, sim::Duration::zero(), fmt::format("n{}.gpu{}>gpu{}", n, from, to));
      }
    }
    m.nodes.push_back(std::move(links));
  }

  // The fabric: leaves (rail r, unit u) are vertices r * units + u, the spines of pod q follow
  // (q * spines + s), then the cores. Every fabric link carries payload at its rate times the
  // wire efficiency.
  const double wire = wire_efficiency(fabric.transport, fabric.mtu);
  const sim::Bandwidth fabric_rate = fabric.port_rate * wire;
  for (int n = 0; n < spec_.nodes; ++n) {
    for (int i = 0; i < m.rails && m.built[at(n)]; ++i) {
      const Nic& nic = node_spec(n).nics[at(compute_nics_[at(i)])];
      if (nic.transport != fabric.transport) {
        throw sim::InputError(fmt::format("NIC {} speaks {} but the fabric is {}", nic.name,
                                          transport_name(nic.transport),
                                          transport_name(fabric.transport)));
      }
      const sim::Bandwidth rate =
          sim::Bandwidth{std::min(nic.port_rate.bytes_per_s, fabric.port_rate.bytes_per_s)} *
          (wire * nic.bandwidth_efficiency);
      const std::string nic_name = fmt::format("n{}.{}", n, nic.name);
      const std::string leaf_name = fmt::format("leaf{}", leaf_of(n, i));
      m.nodes[at(n)].ports.push_back(
          {m.add(rate, fabric.cable_latency, fmt::format("{}>{}", nic_name, leaf_name),
                 LinkRole::kNodePort),
           m.add(rate, fabric.switch_latency + fabric.cable_latency,
                 fmt::format("{}>{}", leaf_name, nic_name), LinkRole::kNodePort)});
      m.pair_cable(m.nodes[at(n)].ports.back());
    }
  }
  wire_cables(fabric_rate);
  m.down_links.assign(m.roles.size(), false);
  compute_hops();
}

// The cables between switches: uplink p of a leaf to spine p % spines of its pod; with three
// tiers, uplink p of a spine to core p % cores.
void System::wire_cables(sim::Bandwidth rate) {
  Impl& m = *impl_;
  const FabricSpec& fabric = spec_.fabric;
  const int uplinks = static_cast<int>(fabric.nodes_per_leaf / fabric.oversubscription);
  if (uplinks < 1) {
    throw sim::InputError(
        fmt::format("fabric: {} nodes per leaf at {}:1 oversubscription leave a leaf no uplink",
                    fabric.nodes_per_leaf, fabric.oversubscription));
  }
  const bool three_tiers = fabric.tiers == 3;
  if (three_tiers) {
    // Every spine of a pod then has the same downlinks and uplinks, which the bisection of
    // fabric_summary.hpp and the even spread of adaptive lanes rely on.
    if (uplinks % fabric.spines != 0) {
      throw sim::InputError(fmt::format(
          "fabric: three tiers need a leaf's uplinks to divide evenly over the spines of its pod; "
          "{} uplinks over {} spines do not",
          uplinks, fabric.spines));
    }
    const int downlinks = m.rails * m.units_per_pod * (uplinks / fabric.spines);
    m.spine_uplinks = static_cast<int>(downlinks / fabric.core_oversubscription);
    if (m.spine_uplinks < 1) {
      throw sim::InputError(fmt::format(
          "fabric: {} downlinks per spine at {}:1 core oversubscription leave a spine no uplink",
          downlinks, fabric.core_oversubscription));
    }
  }
  const int leaves = leaf_count();
  const int spines = m.pods * fabric.spines;
  const int cores = three_tiers ? fabric.cores : 0;
  m.switches.reserve(at(leaves + spines + cores));
  for (int leaf = 0; leaf < leaves; ++leaf) {
    m.switches.push_back({0, leaf, std::min(uplinks, fabric.spines)});
  }
  for (int spine = 0; spine < spines; ++spine) {
    m.switches.push_back(
        {1, spine % fabric.spines, three_tiers ? std::min(m.spine_uplinks, fabric.cores) : 0});
  }
  for (int core = 0; core < cores; ++core) {
    m.switches.push_back({2, core, 0});
  }
  for (std::size_t v = 0; v < m.switches.size(); ++v) {
    boost::add_vertex(m.graph);
  }
  const sim::Duration hop = fabric.switch_latency + fabric.cable_latency;
  for (int leaf = 0; leaf < leaves; ++leaf) {
    for (int port = 0; port < uplinks; ++port) {
      const int spine = m.pod_of_leaf(at(leaf)) * fabric.spines + port % fabric.spines;
      m.cable(at(leaf), at(leaves + spine), fmt::format("leaf{}", leaf),
              fmt::format("spine{}.{}", spine, port), rate, hop, LinkRole::kLeafSpine);
    }
  }
  for (int spine = 0; spine < spines; ++spine) {
    for (int port = 0; port < m.spine_uplinks; ++port) {  // none with two tiers
      const int core = port % fabric.cores;
      m.cable(at(leaves + spine), at(leaves + spines + core), fmt::format("spine{}", spine),
              fmt::format("core{}.{}", core, port), rate, hop, LinkRole::kSpineCore);
    }
  }
}

// Hops from every switch to each leaf over the cables that are up: breadth-first search from
// the leaf against the cables' direction, so a cable down in one direction counts in that one
// only. One search per leaf over every cable is O(leaves x cables), 1024 leaves x 131k cables at
// 4096 dgx-h100 nodes: so the reversed cables that are up are first copied into a compressed
// sparse row graph, which Boost's search walks as plain arrays (0.2 s there, against 4.5 s over
// a filtered, reversed view of the adjacency list).
void System::compute_hops() {
  Impl& m = *impl_;
  const std::size_t vertices = boost::num_vertices(m.graph);
  std::vector<std::pair<std::size_t, std::size_t>> reversed;
  reversed.reserve(boost::num_edges(m.graph));
  for (auto [e, end] = boost::edges(m.graph); e != end; ++e) {
    if (!m.down_links[boost::get(boost::edge_name, m.graph, *e)]) {
      reversed.emplace_back(boost::target(*e, m.graph), boost::source(*e, m.graph));
    }
  }
  const boost::compressed_sparse_row_graph<boost::directedS> towards(
      boost::edges_are_unsorted_multi_pass, reversed.begin(), reversed.end(), vertices);
  const int leaves = leaf_count();
  m.hops_to_leaf.assign(at(leaves), std::vector<int>(vertices, kUnreachable));
  for (int leaf = 0; leaf < leaves; ++leaf) {
    std::vector<int>& hops = m.hops_to_leaf[at(leaf)];
    hops[at(leaf)] = 0;
    boost::breadth_first_search(towards, at(leaf),
                                boost::visitor(boost::make_bfs_visitor(
                                    boost::record_distances(hops.data(), boost::on_tree_edge()))));
  }
}

void System::set_link_down(sim::LinkId link) {
  Impl& m = *impl_;
  if (!is_spine_link(link) && !is_core_link(link) && !is_node_port_link(link)) {
    throw sim::InputError(
        "link " + m.net.link(link).name +
        " is not a fabric link; only NIC ports and cables between switches go down");
  }
  m.down_links[link.index] = true;
  compute_hops();
}

bool System::is_link_down(sim::LinkId link) const {
  return link.index < impl_->down_links.size() && impl_->down_links[link.index];
}

std::pair<sim::LinkId, sim::LinkId> System::cable_of(sim::LinkId link) const {
  RAILSIM_ASSERT(is_spine_link(link) || is_core_link(link) || is_node_port_link(link),
                 "only fabric links are cables");
  const Attachment& cable = impl_->cables.at(link.index);
  return {cable.up, cable.down};
}

bool System::is_node_port_link(sim::LinkId link) const {
  return impl_->has_role(link, LinkRole::kNodePort);
}

bool System::nic_port_up(int node, int compute_nic) const {
  const auto& port = impl_->links_of(node).ports.at(at(compute_nic));
  return !is_link_down(port.up) && !is_link_down(port.down);
}

System::~System() = default;

int System::rail_of(int node, int compute_nic) const {
  return impl_->rail.at(at(node)).at(at(compute_nic));
}

int System::leaf_of(int node, int compute_nic) const {
  return rail_of(node, compute_nic) * impl_->units + node / spec_.fabric.nodes_per_leaf;
}

int System::leaf_count() const { return impl_->rails * impl_->units; }

bool System::is_spine_link(sim::LinkId link) const {
  return impl_->has_role(link, LinkRole::kLeafSpine);
}

bool System::is_core_link(sim::LinkId link) const {
  return impl_->has_role(link, LinkRole::kSpineCore);
}

bool System::is_host_memory_link(sim::LinkId link) const {
  return impl_->has_role(link, LinkRole::kHostMemory);
}

bool System::built(int node) const { return impl_->built.at(at(node)); }

const NodeSpec& System::node_spec(int node) const {
  const auto variant = spec_.node_variants.find(node);
  return variant == spec_.node_variants.end() ? spec_.node : variant->second;
}

int System::nearest_compute_nic(int node, int gpu) const {
  int best = 0;
  PathClass best_class = PathClass::kSys;
  for (std::size_t i = 0; i < compute_nics_.size(); ++i) {
    const PathClass c = pcie_path_class(node_spec(node), {DeviceRef::Kind::kGpu, gpu},
                                        {DeviceRef::Kind::kNic, compute_nics_[i]});
    if (c < best_class) {
      best = static_cast<int>(i);
      best_class = c;
    }
  }
  return best;
}

bool System::uses_gdr(int node, int gpu, int compute_nic) const {
  const int nic = compute_nics_.at(at(compute_nic));
  const NodeSpec& spec = node_spec(node);
  if (!spec.nics[at(nic)].gdr_capable ||
      std::find(spec_.gdr_off_nodes.begin(), spec_.gdr_off_nodes.end(), node) !=
          spec_.gdr_off_nodes.end()) {
    return false;
  }
  const PathClass distance =
      pcie_path_class(spec, {DeviceRef::Kind::kGpu, gpu}, {DeviceRef::Kind::kNic, nic});
  return distance <= spec_.gdr_level;
}

namespace {

// The PCIe elements above a device, nearest first: switch indices, then the host bridge.
struct Climb {
  std::vector<int> switches;
  int host_bridge = 0;
};

Climb climb(const NodeSpec& node, PcieParent parent) {
  Climb c;
  while (parent.kind == PcieParent::Kind::kSwitch) {
    c.switches.push_back(parent.index);
    parent = node.switches[at(parent.index)].parent;
  }
  c.host_bridge = parent.index;
  return c;
}

}  // namespace

// Appends the links of one route, piece by piece, inside the nodes of a System.
class System::PathBuilder {
 public:
  PathBuilder(const System& system, std::vector<sim::LinkId>& path)
      : system_(system), m_(*system.impl_), path_(path) {}

  // A PCIe element of node n: its links to its parent, and the parent.
  struct Element {
    const Attachment* links = nullptr;
    PcieParent parent;
  };

  Element gpu(int n, int g) const {
    return {&m_.nodes[at(n)].gpus[at(g)], system_.node_spec(n).gpus[at(g)].parent};
  }

  Element nic(int n, int x) const {
    return {&m_.nodes[at(n)].nics[at(x)], system_.node_spec(n).nics[at(x)].parent};
  }

  int socket(int n, const Element& e) const {
    const NodeSpec& node = system_.node_spec(n);
    const int bridge = climb(node, e.parent).host_bridge;
    return node.numa_nodes[at(node.host_bridges[at(bridge)].numa)].socket;
  }

  // Device to device over PCIe: up to the lowest common switch and down; with none, through
  // the host bridges (and the socket link when the sockets differ).
  void pcie(int n, const Element& from, const Element& to) {
    const Climb a = climb(system_.node_spec(n), from.parent);
    const Climb b = climb(system_.node_spec(n), to.parent);
    for (std::size_t i = 0; i < a.switches.size(); ++i) {
      const auto common = std::find(b.switches.begin(), b.switches.end(), a.switches[i]);
      if (common != b.switches.end()) {
        path_.push_back(from.links->up);
        climb_switches(n, a.switches, i);
        descend_switches(n, b.switches, static_cast<std::size_t>(common - b.switches.begin()));
        path_.push_back(to.links->down);
        return;
      }
    }
    up_to_bridge(n, from);
    cross_sockets(n, socket(n, from), socket(n, to));
    down_from_bridge(n, to);
  }

  void up_to_bridge(int n, const Element& e) {
    path_.push_back(e.links->up);
    const Climb c = climb(system_.node_spec(n), e.parent);
    climb_switches(n, c.switches, c.switches.size());
  }

  void down_from_bridge(int n, const Element& e) {
    const Climb c = climb(system_.node_spec(n), e.parent);
    descend_switches(n, c.switches, c.switches.size());
    path_.push_back(e.links->down);
  }

  void cross_sockets(int n, int from, int to) {
    if (from != to) {
      path_.push_back(m_.nodes[at(n)].socket_links.at({from, to}));
    }
  }

  // A bounce buffer in host memory: written by one side, read by the other.
  void bounce(int n, int socket_index) {
    path_.push_back(m_.nodes[at(n)].memory[at(socket_index)]);
    path_.push_back(m_.nodes[at(n)].memory[at(socket_index)]);
  }

 private:
  // The up links of the first `count` switches of a climb, and the down links in reverse.
  void climb_switches(int n, const std::vector<int>& switches, std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) {
      path_.push_back(m_.nodes[at(n)].switches[at(switches[k])].up);
    }
  }

  void descend_switches(int n, const std::vector<int>& switches, std::size_t count) {
    for (std::size_t k = count; k-- > 0;) {
      path_.push_back(m_.nodes[at(n)].switches[at(switches[k])].down);
    }
  }

  const System& system_;
  const Impl& m_;
  std::vector<sim::LinkId>& path_;
};

std::vector<sim::LinkId> System::route_in_node(int node, int from_gpu, int to_gpu) const {
  if (from_gpu == to_gpu) {
    throw sim::InputError("route: GPU " + std::to_string(from_gpu) + " to itself");
  }
  const Impl::NodeLinks& links = impl_->links_of(node);
  const NodeSpec& spec = node_spec(node);
  if (nvlinks_between(spec, from_gpu, to_gpu) > 0) {
    if (spec.nvlink.kind == NvlinkKind::kSwitch) {
      return {links.nvswitch_ports.at(at(from_gpu)).up, links.nvswitch_ports.at(at(to_gpu)).down};
    }
    return {links.nvlink_bridges.at({from_gpu, to_gpu})};
  }
  std::vector<sim::LinkId> path;
  PathBuilder build(*this, path);
  const PathBuilder::Element from = build.gpu(node, from_gpu);
  const PathBuilder::Element to = build.gpu(node, to_gpu);
  const PathClass distance =
      pcie_path_class(spec, {DeviceRef::Kind::kGpu, from_gpu}, {DeviceRef::Kind::kGpu, to_gpu});
  if (distance <= spec_.p2p_level) {
    build.pcie(node, from, to);
    return path;
  }
  build.up_to_bridge(node, from);
  build.bounce(node, build.socket(node, from));
  build.cross_sockets(node, build.socket(node, from), build.socket(node, to));
  build.down_from_bridge(node, to);
  return path;
}

namespace {

// A switch one hop closer to the target, and the link to it.
struct NextHop {
  std::size_t next = 0;
  std::uint32_t link = 0;
};

// One adaptive lane on its way through the fabric, by the rule of system.hpp.
class LaneWalk {
 public:
  LaneWalk(const std::vector<Switch>& switches, std::uint64_t lane)
      : switches_(switches), digit_(lane) {}

  // The index among `choices` (the next hops from `here`, in port order) that the lane takes.
  std::size_t pick(std::size_t here, const std::vector<NextHop>& choices) {
    const Switch& from = switches_[here];
    const int tier = switches_[choices.front().next].tier;
    if (tier > from.tier) {
      RAILSIM_ASSERT(from.fan_out >= 1, "a switch with uplinks reaches at least one switch");
      const std::size_t taken = digit_ % choices.size();
      digit_ /= static_cast<std::uint64_t>(from.fan_out);
      climbed_[static_cast<std::size_t>(from.tier)] = {true, from.position, digit_};
      return taken;
    }
    const Climbed& up = climbed_[static_cast<std::size_t>(tier)];
    if (!up.done) {
      return digit_ % choices.size();
    }
    // The mirror: the switch at the position climbed through (arriving at a leaf, the target
    // is the one leaf there is), over the cable of the rank climbed.
    const auto mirrors = [&](const NextHop& hop) {
      return tier == 0 || switches_[hop.next].position == up.position;
    };
    const auto count =
        static_cast<std::uint64_t>(std::count_if(choices.begin(), choices.end(), mirrors));
    if (count == 0) {
      return up.digit % choices.size();
    }
    std::uint64_t rank = up.digit % count;
    for (std::size_t i = 0; i < choices.size(); ++i) {
      if (mirrors(choices[i]) && rank-- == 0) {
        return i;
      }
    }
    RAILSIM_UNREACHABLE("a mirror cable was counted");
  }

 private:
  // Where the lane left a tier going up, and the digit it carried on with.
  struct Climbed {
    bool done = false;
    int position = 0;
    std::uint64_t digit = 0;
  };

  const std::vector<Switch>& switches_;
  std::uint64_t digit_;
  std::array<Climbed, kTiers> climbed_{};
};

}  // namespace

std::vector<sim::LinkId> System::route(Endpoint src, Endpoint dst, std::uint64_t queue_pair) const {
  return route_lane(src, dst, queue_pair, -1);
}

std::vector<std::vector<sim::LinkId>> System::routes(Endpoint src,
                                                     Endpoint dst,
                                                     std::uint64_t queue_pair) const {
  const Impl& m = *impl_;
  const auto from = at(leaf_of(src.node, src.nic));
  const auto to = at(leaf_of(dst.node, dst.nic));
  if (spec_.fabric.routing == Routing::kEcmp || from == to) {
    return {route(src, dst, queue_pair)};
  }
  // Lanes are numbered over all cables; a cable that is down is not taken (the lanes that
  // would have taken it share the others).
  const int lanes = m.pod_of_leaf(from) == m.pod_of_leaf(to)
                        ? static_cast<int>(boost::out_degree(from, m.graph))
                        : m.switches[from].fan_out * m.spine_uplinks;
  std::vector<std::vector<sim::LinkId>> paths;
  paths.reserve(at(lanes));
  for (int lane = 0; lane < lanes; ++lane) {
    paths.push_back(route_lane(src, dst, queue_pair, lane));
  }
  return paths;
}

std::vector<sim::LinkId> System::route_lane(Endpoint src,
                                            Endpoint dst,
                                            std::uint64_t queue_pair,
                                            int lane) const {
  if (src.node == dst.node) {
    throw sim::InputError("route: both ends on node " + std::to_string(src.node) +
                          "; RDMA routes join two nodes");
  }
  const Impl& m = *impl_;
  RAILSIM_ASSERT(built(src.node) && built(dst.node), "a route between nodes that are built");
  std::vector<sim::LinkId> path;
  PathBuilder build(*this, path);

  // Sender: memory to the NIC. Host memory is read on the NIC's socket; GPU memory directly
  // (GDR) or through a bounce buffer on the GPU's socket.
  const PathBuilder::Element src_port = build.nic(src.node, compute_nics_.at(at(src.nic)));
  if (src.gpu == kHostMemory) {
    path.push_back(m.nodes[at(src.node)].memory[at(build.socket(src.node, src_port))]);
    build.down_from_bridge(src.node, src_port);
  } else if (uses_gdr(src.node, src.gpu, src.nic)) {
    build.pcie(src.node, build.gpu(src.node, src.gpu), src_port);
  } else {
    const PathBuilder::Element gpu = build.gpu(src.node, src.gpu);
    build.up_to_bridge(src.node, gpu);
    build.bounce(src.node, build.socket(src.node, gpu));
    build.cross_sockets(src.node, build.socket(src.node, gpu), build.socket(src.node, src_port));
    build.down_from_bridge(src.node, src_port);
  }
  const auto port_up = [&](const sim::LinkId port) {
    if (is_link_down(port)) {
      throw sim::InputError("link " + m.net.link(port).name +
                            " is down: no transfer can use that NIC");
    }
    path.push_back(port);
  };
  port_up(m.nodes[at(src.node)].ports[at(src.nic)].up);

  // Through the fabric: at each switch, one of the ports one hop closer, chosen by the hash or
  // by the adaptive lane (system.hpp).
  const int target = leaf_of(dst.node, dst.nic);
  const std::vector<int>& hops = m.hops_to_leaf[at(target)];
  std::size_t here = at(leaf_of(src.node, src.nic));
  std::uint64_t key = sim::hash_mix(
      sim::hash_mix(sim::hash_mix(spec_.fabric.ecmp_seed, at(src.node) * 64 + at(src.nic)),
                    at(dst.node) * 64 + at(dst.nic)),
      queue_pair);
  if (hops[here] == kUnreachable) {
    throw sim::InputError(fmt::format(
        "no path from leaf{} to leaf{}: the cables between them are down", here, target));
  }
  std::vector<NextHop> choices;
  LaneWalk walk(m.switches, lane < 0 ? 0 : static_cast<std::uint64_t>(lane));
  while (here != at(target)) {
    choices.clear();
    for (auto [e, end] = boost::out_edges(here, m.graph); e != end; ++e) {
      const std::size_t next = boost::target(*e, m.graph);
      const std::uint32_t link = boost::get(boost::edge_name, m.graph, *e);
      if (!m.down_links[link] && hops[next] == hops[here] - 1) {
        choices.push_back({next, link});
      }
    }
    RAILSIM_ASSERT(!choices.empty(), "a reachable switch has a next hop that is up");
    key = sim::hash_mix(key, here);
    const std::size_t pick = lane < 0 ? key % choices.size() : walk.pick(here, choices);
    const auto& [next, link] = choices[pick];
    path.push_back(sim::LinkId{link});
    here = next;
  }
  port_up(m.nodes[at(dst.node)].ports[at(dst.nic)].down);

  // Receiver: the NIC to memory, the mirror of the sender.
  const PathBuilder::Element dst_port = build.nic(dst.node, compute_nics_.at(at(dst.nic)));
  if (dst.gpu == kHostMemory) {
    build.up_to_bridge(dst.node, dst_port);
    path.push_back(m.nodes[at(dst.node)].memory[at(build.socket(dst.node, dst_port))]);
  } else if (uses_gdr(dst.node, dst.gpu, dst.nic)) {
    build.pcie(dst.node, dst_port, build.gpu(dst.node, dst.gpu));
  } else {
    const PathBuilder::Element gpu = build.gpu(dst.node, dst.gpu);
    build.up_to_bridge(dst.node, dst_port);
    build.cross_sockets(dst.node, build.socket(dst.node, dst_port), build.socket(dst.node, gpu));
    build.bounce(dst.node, build.socket(dst.node, gpu));
    build.down_from_bridge(dst.node, gpu);
  }
  return path;
}

}  // namespace railsim::models
