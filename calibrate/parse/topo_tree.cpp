// File: calibrate/parse/topo_tree.cpp
#include "calibrate/parse/topo_tree.hpp"

#include "sim/index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <vector>

namespace railsim::calibrate::parse {
namespace {

using models::PathClass;
using sim::at;

// NUMA ids from the GPUs; groups without a GPU's id take the smallest free ones. The lower
// half of the ids goes on socket 0, the upper half on socket 1, as Linux numbers NUMA nodes
// socket by socket; the matrix itself cannot tell the sockets apart (SYS is both). Returns the
// numa_nodes index of each NODE group.
std::vector<int> build_numa_nodes(const TopoCells& cells,
                                  const TopoGroups& groups,
                                  TopoImport& import) {
  models::NodeSpec& node = import.node;
  const std::vector<int>& group = groups.of_level(kNodeLevel);
  const int count = 1 + *std::max_element(group.begin(), group.end());
  std::vector<std::optional<int>> ids(at(count));
  std::vector<std::string> cpus(at(count), "N/A");
  for (int g = 0; g < cells.gpus(); ++g) {
    if (cells.numa_id(g)) {
      ids[at(group[at(g)])] = cells.numa_id(g);
    }
    if (cells.has_row(g)) {
      cpus[at(group[at(g)])] = cells.cpus(g);
    }
  }
  std::set<int> used;
  for (const std::optional<int>& id : ids) {
    if (id) {
      used.insert(*id);
    }
  }
  std::vector<int> made_up;
  for (std::optional<int>& id : ids) {
    if (!id) {
      int free = 0;
      while (used.count(free) > 0) {
        ++free;
      }
      id = free;
      used.insert(free);
      made_up.push_back(free);
    }
  }
  std::vector<int> order(at(count));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int x, int y) { return *ids[at(x)] < *ids[at(y)]; });
  const int sockets = count == 1 ? 1 : 2;
  const int on_first = (count + 1) / 2;
  std::vector<int> numa_index_of_group(at(count), 0);
  for (int n = 0; n < count; ++n) {
    const int g = order[at(n)];
    numa_index_of_group[at(g)] = n;
    node.numa_nodes.push_back({*ids[at(g)], n < on_first ? 0 : sockets - 1, cpus[at(g)]});
  }
  node.sockets.resize(at(sockets));
  if (!made_up.empty()) {
    import.notes.push_back(fmt::format(
        "NUMA node{} {} hold{} NICs only or GPUs without a NUMA Affinity: id{} and CPU list "
        "(N/A) made up",
        made_up.size() == 1 ? "" : "s", fmt::join(made_up, ", "), made_up.size() == 1 ? "s" : "",
        made_up.size() == 1 ? "" : "s"));
  }
  if (sockets > 1) {
    import.assumed.push_back(fmt::format(
        "sockets: NUMA nodes {} on socket 0, the rest on socket 1 (SYS does not tell sockets "
        "apart)",
        fmt::join(std::vector<int>(used.begin(), std::next(used.begin(), on_first)), ", ")));
  }
  return numa_index_of_group;
}

models::PcieParent add_switch(models::NodeSpec& node, models::PcieParent parent) {
  node.switches.push_back({parent, {}});
  return {models::PcieParent::Kind::kSwitch, static_cast<int>(node.switches.size() - 1)};
}

// One host bridge per PHB group; per PXB group a switch for each PIX group, below a common
// switch when there are several; a device alone in its PXB group hangs from the host bridge.
void build_pcie_tree(const TopoCells& cells,
                     const TopoGroups& groups,
                     const std::vector<int>& numa_index_of_group,
                     models::NodeSpec& node) {
  const int devices = cells.devices();
  const int gpus = cells.gpus();
  const std::vector<int>& pix = groups.of_level(kPixLevel);
  const std::vector<int>& pxb = groups.of_level(kPxbLevel);
  const std::vector<int>& phb = groups.of_level(kPhbLevel);
  const std::vector<int>& numa = groups.of_level(kNodeLevel);
  std::map<int, int> bridge_of_phb;
  std::map<int, models::PcieParent> top_of_pxb;
  std::map<int, models::PcieParent> switch_of_pix;
  std::vector<models::PcieParent> parents(at(devices));
  for (int d = 0; d < devices; ++d) {
    if (bridge_of_phb.count(phb[at(d)]) == 0) {
      bridge_of_phb[phb[at(d)]] = static_cast<int>(node.host_bridges.size());
      node.host_bridges.push_back({numa_index_of_group[at(numa[at(d)])]});
    }
    const models::PcieParent bridge{models::PcieParent::Kind::kHostBridge,
                                    bridge_of_phb[phb[at(d)]]};
    std::set<int> pix_groups;
    int members = 0;
    for (int e = 0; e < devices; ++e) {
      if (pxb[at(e)] == pxb[at(d)]) {
        pix_groups.insert(pix[at(e)]);
        ++members;
      }
    }
    if (members == 1) {
      parents[at(d)] = bridge;
      continue;
    }
    if (pix_groups.size() > 1 && top_of_pxb.count(pxb[at(d)]) == 0) {
      top_of_pxb[pxb[at(d)]] = add_switch(node, bridge);
    }
    if (switch_of_pix.count(pix[at(d)]) == 0) {
      switch_of_pix[pix[at(d)]] =
          add_switch(node, pix_groups.size() > 1 ? top_of_pxb[pxb[at(d)]] : bridge);
    }
    parents[at(d)] = switch_of_pix[pix[at(d)]];
  }
  node.gpus.resize(at(gpus));
  for (int g = 0; g < gpus; ++g) {
    node.gpus[at(g)].parent = parents[at(g)];
  }
  node.nics.resize(at(devices - gpus));
  for (int d = gpus; d < devices; ++d) {
    node.nics[at(d - gpus)].parent = parents[at(d)];
  }
}

// NV# on every GPU pair (of more than two GPUs) is an NVSwitch domain; on some pairs, bridges.
// Either way the model holds one link count.
void build_nvlink(const TopoCells& cells, models::NodeSpec& node) {
  const int gpus = cells.gpus();
  int first_a = -1;
  int first_b = -1;
  int count = 0;
  int nvlink_pairs = 0;
  int pcie_pairs = 0;
  for (int a = 0; a < gpus; ++a) {
    for (int b = a + 1; b < gpus; ++b) {
      const std::optional<TopoLink>& cell = cells.cell(a, b);
      if (!cell) {
        continue;
      }
      if (cell->path_class != PathClass::kNvlink) {
        ++pcie_pairs;
        continue;
      }
      if (first_a < 0) {
        first_a = a;
        first_b = b;
        count = cell->nvlinks;
      }
      if (cell->nvlinks != count) {
        cells.fail_at_cell(
            a, b,
            fmt::format("expected NV{} as {} and {} have (railsim's NVLink domain "
                        "has one link count for every pair), got {}",
                        count, cells.name(first_a), cells.name(first_b), to_string(*cell)));
      }
      ++nvlink_pairs;
      node.nvlink.bridged_pairs.emplace_back(a, b);
    }
  }
  if (nvlink_pairs == 0) {
    node.nvlink.bridged_pairs.clear();
    return;
  }
  node.nvlink.links_per_gpu = count;
  if (pcie_pairs == 0 && gpus > 2) {
    node.nvlink.kind = models::NvlinkKind::kSwitch;
    node.nvlink.bridged_pairs.clear();
    return;
  }
  node.nvlink.kind = models::NvlinkKind::kBridge;
}

}  // namespace

void build_node_tree(const TopoCells& cells, const TopoGroups& groups, TopoImport& import) {
  const std::vector<int> numa_index_of_group = build_numa_nodes(cells, groups, import);
  build_pcie_tree(cells, groups, numa_index_of_group, import.node);
  build_nvlink(cells, import.node);
}

}  // namespace railsim::calibrate::parse
