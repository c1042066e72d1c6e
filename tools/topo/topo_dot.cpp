// File: tools/topo/topo_dot.cpp
// Graphviz output of `railsim topo`.
#include "tools/topo/topo_dot.hpp"

#include "tools/topo/rate_text.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace railsim::tools {
namespace {

// Graphviz. Every edge stands for a full-duplex pair of links and carries the rate of one
// direction; nodes and edges are named as the links are (leaf3, spine1), so a drawing and
// `--links` agree. The node cluster shows node 0 (all nodes are alike): sockets, host bridges,
// PCIe switches, GPUs, NICs, and the NVSwitch or the NVLink bridges, each edge labelled with
// the capacity node 0's link has in the network (faults included). The fabric cluster groups
// the leaves by rail, one cluster each, puts the spines in one rank, and draws nodes as one
// box per scalable unit: a unit's ports to one leaf collapse into one edge "count x rate", as
// do a leaf's cables to one spine, labelled with the designed rates (degraded links are listed
// in comments). It so has units x rails + leaves x spines edges whatever the node count:
// 32 + 128 for 128 DGX H100 in 4 units.

// A DOT string: each part escaped, the non-empty parts joined by DOT's line break.
std::string dot_label(std::initializer_list<std::string> parts) {
  std::string text = "\"";
  bool first = true;
  for (const std::string& part : parts) {
    if (part.empty()) {
      continue;
    }
    if (!first) {
      text += "\\n";
    }
    first = false;
    for (const char c : part) {
      if (c == '"' || c == '\\') {
        text += '\\';
      }
      text += c;
    }
  }
  return text + "\"";
}

// Node 0's rates as its links have them (faults included), found by the links' names.
class NodeRates {
 public:
  explicit NodeRates(const sim::FlowNetwork& network) {
    for (std::uint32_t l = 0; l < network.link_count(); ++l) {
      const sim::LinkInfo link = network.link(sim::LinkId{l});
      if (link.name.rfind("n0.", 0) == 0) {
        rates_.emplace(link.name, link.capacity);
      }
    }
  }

  // "49.15 GB/s" for link n0.<name>; empty when the System builds no such link.
  std::string operator()(const std::string& name) const {
    const auto found = rates_.find("n0." + name);
    return found == rates_.end() ? std::string() : in_gbytes(found->second);
  }

 private:
  std::unordered_map<std::string, sim::Bandwidth> rates_;
};

std::string pcie_edge(const NodeRates& rates,
                      const std::string& child,
                      const models::PcieParent& parent,
                      const models::PcieLink& link) {
  const std::string up = models::pcie_parent_name(parent);
  return fmt::format("    \"node.{}\" -> \"node.{}\" [label={}];\n", up, child,
                     dot_label({fmt::format("Gen{} x{}", link.generation, link.lanes),
                                rates(fmt::format("{}>n0.{}", child, up))}));
}

void print_node_dot(const models::System& system,
                    const sim::FlowNetwork& network,
                    std::ostream& out) {
  const models::NodeSpec& node = system.spec().node;
  const NodeRates rates(network);
  fmt::print(out, "  subgraph cluster_node {{\n    label={};\n",
             dot_label({fmt::format("one node ({} alike): {}", system.spec().nodes, node.name),
                        node.description}));
  for (std::size_t s = 0; s < node.sockets.size(); ++s) {
    fmt::print(out, "    \"node.cpu{}\" [label={}];\n", s,
               dot_label({fmt::format("CPU{}", s), node.sockets[s].model,
                          "DRAM " + rates(fmt::format("mem{}", s))}));
    for (std::size_t t = 0; t < s; ++t) {
      fmt::print(out, "    \"node.cpu{}\" -> \"node.cpu{}\" [label={}, constraint=false];\n", t, s,
                 dot_label({"socket link", rates(fmt::format("cpu{}>cpu{}", t, s))}));
    }
  }
  for (std::size_t h = 0; h < node.host_bridges.size(); ++h) {
    const models::NumaNode& numa =
        node.numa_nodes[static_cast<std::size_t>(node.host_bridges[h].numa)];
    fmt::print(out, "    \"node.hb{}\" [label={}];\n    \"node.cpu{}\" -> \"node.hb{}\";\n", h,
               dot_label({fmt::format("host bridge {}", h), fmt::format("NUMA {}", numa.id)}),
               numa.socket, h);
  }
  for (std::size_t i = 0; i < node.switches.size(); ++i) {
    fmt::print(
        out, "    \"node.sw{}\" [label={}];\n{}", i, dot_label({fmt::format("PCIe switch {}", i)}),
        pcie_edge(rates, fmt::format("sw{}", i), node.switches[i].parent, node.switches[i].uplink));
  }
  for (std::size_t g = 0; g < node.gpus.size(); ++g) {
    fmt::print(out, "    \"node.gpu{}\" [label={}, style=filled, fillcolor=palegreen];\n{}", g,
               dot_label({fmt::format("GPU{}", g), node.gpus[g].model}),
               pcie_edge(rates, fmt::format("gpu{}", g), node.gpus[g].parent, node.gpus[g].link));
  }
  for (std::size_t x = 0; x < node.nics.size(); ++x) {
    const models::Nic& nic = node.nics[x];
    const auto& compute = system.compute_nics();
    const auto it = std::find(compute.begin(), compute.end(), static_cast<int>(x));
    const std::string role =
        it == compute.end()
            ? std::string("storage")
            : fmt::format("compute, rail {}",
                          system.rail_of(0, static_cast<int>(it - compute.begin())));
    fmt::print(out, "    \"node.{}\" [label={}, style=filled, fillcolor=lightblue];\n{}", nic.name,
               dot_label({nic.name, nic.model, in_gbps(nic.port_rate), role}),
               pcie_edge(rates, nic.name, nic.parent, nic.link));
  }
  const models::NvlinkDomain& nvlink = node.nvlink;
  if (nvlink.kind == models::NvlinkKind::kSwitch) {
    fmt::print(out, "    \"node.nvswitch\" [label={}, style=filled, fillcolor=palegreen];\n",
               dot_label({fmt::format("NVSwitch x{}", nvlink.switch_count)}));
    for (std::size_t g = 0; g < node.gpus.size(); ++g) {
      fmt::print(out, "    \"node.gpu{}\" -> \"node.nvswitch\" [label={}, color=darkgreen];\n", g,
                 dot_label({fmt::format("NV{}", nvlink.links_per_gpu),
                            rates(fmt::format("gpu{}>n0.nvswitch", g))}));
    }
  }
  if (nvlink.kind == models::NvlinkKind::kBridge) {
    for (const auto& [a, b] : nvlink.bridged_pairs) {
      fmt::print(out, "    \"node.gpu{}\" -> \"node.gpu{}\" [label={}, color=darkgreen];\n", a, b,
                 dot_label({fmt::format("NV{} bridge", nvlink.links_per_gpu),
                            rates(fmt::format("gpu{}>gpu{}", a, b))}));
    }
  }
  fmt::print(out, "  }}\n");
}

void print_fabric_dot(const models::System& system,
                      const models::FabricSummary& s,
                      std::ostream& out) {
  const models::SystemSpec& spec = system.spec();
  const auto leaves = static_cast<std::size_t>(s.leaves);
  std::vector<int> rail_of_leaf(leaves, -1);
  std::vector<int> unit_of_leaf(leaves, -1);
  std::map<std::pair<int, int>, int> ports;  // (leaf, unit) -> node ports between them
  for (int n = 0; n < spec.nodes; ++n) {
    for (int i = 0; i < s.rails; ++i) {
      const int leaf = system.leaf_of(n, i);
      rail_of_leaf[static_cast<std::size_t>(leaf)] = system.rail_of(n, i);
      unit_of_leaf[static_cast<std::size_t>(leaf)] = n / s.nodes_per_leaf;
      ++ports[{leaf, n / s.nodes_per_leaf}];
    }
  }
  fmt::print(out, "  subgraph cluster_fabric {{\n    label={};\n",
             dot_label({fmt::format("fabric: {} rails x {} unit{}, {} spines, {:.2f}:1", s.rails,
                                    s.scalable_units, s.scalable_units == 1 ? "" : "s", s.spines,
                                    s.oversubscription),
                        "bisection " + in_gbytes(s.bisection)}));
  fmt::print(out, "    {{ rank=same;");
  for (int spine = 0; spine < s.spines; ++spine) {
    fmt::print(out, " \"spine{}\" [style=filled, fillcolor=khaki];", spine);
  }
  fmt::print(out, " }}\n");
  for (int rail = 0; rail < s.rails; ++rail) {
    // Aligned, rail r is compute NIC r of every node; otherwise each node's NICs mix.
    std::string name = fmt::format("rail {}", rail);
    if (spec.fabric.rails == models::RailMapping::kAligned) {
      const int nic = system.compute_nics()[static_cast<std::size_t>(rail)];
      name += " (" + spec.node.nics[static_cast<std::size_t>(nic)].name + ")";
    }
    fmt::print(out, "    subgraph cluster_rail{} {{\n      label={};\n", rail, dot_label({name}));
    for (std::size_t leaf = 0; leaf < leaves; ++leaf) {
      if (rail_of_leaf[leaf] == rail) {
        fmt::print(
            out, "      \"leaf{}\" [label={}];\n", leaf,
            dot_label({fmt::format("leaf{}", leaf), fmt::format("SU {}", unit_of_leaf[leaf])}));
      }
    }
    fmt::print(out, "    }}\n");
  }
  fmt::print(out, "    {{ rank=same;");
  for (int unit = 0; unit < s.scalable_units; ++unit) {
    const int first = unit * s.nodes_per_leaf;
    const int last = std::min(spec.nodes, first + s.nodes_per_leaf) - 1;
    fmt::print(out, " \"su{}\" [label={}, style=filled, fillcolor=palegreen];", unit,
               dot_label({fmt::format("SU {}", unit), fmt::format("n{}-n{}", first, last),
                          fmt::format("{} nodes", last - first + 1)}));
  }
  fmt::print(out, " }}\n");
  const auto plane_spines = s.uplinks_to_spine.size();  // a leaf reaches its plane's spines
  for (std::size_t leaf = 0; leaf < leaves; ++leaf) {
    const auto first =
        static_cast<std::size_t>(rail_of_leaf[leaf] / s.rails_per_plane) * plane_spines;
    for (std::size_t spine = 0; spine < plane_spines; ++spine) {
      if (s.uplinks_to_spine[spine] > 0) {
        fmt::print(
            out, "    \"spine{}\" -> \"leaf{}\" [label={}];\n", first + spine, leaf,
            dot_label({fmt::format("{} x {}", s.uplinks_to_spine[spine], in_gbps(s.port_rate))}));
      }
    }
  }
  for (const auto& [where, count] : ports) {
    fmt::print(out, "    \"leaf{}\" -> \"su{}\" [label={}];\n", where.first, where.second,
               dot_label({fmt::format("{} x {}", count, in_gbps(s.node_port_rate))}));
  }
  fmt::print(out, "  }}\n");
}

}  // namespace

void print_dot(const models::System& system,
               const sim::FlowNetwork& network,
               const models::FabricSummary& s,
               std::ostream& out) {
  fmt::print(out, "digraph railsim {{\n");
  fmt::print(out, "  graph [label={}, labelloc=t, fontname=Helvetica, newrank=true];\n",
             dot_label({fmt::format("{} x {}", system.spec().node.name, s.nodes)}));
  fmt::print(out, "  node [shape=box, fontname=Helvetica, fontsize=10];\n");
  fmt::print(out, "  edge [dir=none, fontname=Helvetica, fontsize=9];\n");
  for (const models::DegradedLink& d : s.degraded) {
    fmt::print(out, "  // degraded: {} at {} (designed {})\n", d.name, in_gbps(d.capacity),
               in_gbps(d.designed));
  }
  print_node_dot(system, network, out);
  print_fabric_dot(system, s, out);
  fmt::print(out, "}}\n");
}

}  // namespace railsim::tools
