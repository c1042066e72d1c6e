// File: calibrate/parse/topo_import.cpp
// The dump's PCIe classes form an ultrametric (PIX < PXB < PHB < NODE < SYS: two devices that are
// each that close to a third are that close to each other, since a device has one chain of
// switches above it), so each level's groups are the connected components of the pairs known
// to be that close. The tree is built from those groups; a known pair that lands in a group its
// own cell says it is not in is a matrix no tree can give. Taking the components of the known
// pairs only is the least-joined choice, so it finds a tree whenever one exists.
#include "calibrate/parse/topo_import.hpp"

#include "models/hardware/node_presets.hpp"
#include "sim/assert.hpp"
#include "sim/index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <set>
#include <string_view>
#include <utility>

namespace railsim::calibrate::parse {
namespace {

using models::PathClass;

// Closeness levels; the groups of level L hold the devices at most that far apart.
constexpr int kPixLevel = 1;   // directly below one switch
constexpr int kPxbLevel = 2;   // below one switch
constexpr int kPhbLevel = 3;   // below one host bridge
constexpr int kNodeLevel = 4;  // on one NUMA node
constexpr int kSysLevel = 5;   // on different NUMA nodes
constexpr int kLevels = 4;     // the levels that make groups: PIX to NODE

// node_file.cpp's bound: Linux numbers NUMA nodes below 1 << 10.
constexpr int kMaxNumaId = 1023;

constexpr const char* kLevelNames[] = {"", "PIX", "PXB", "PHB", "NODE", "SYS"};

constexpr const char* kGroupMeaning[] = {"", "directly below one PCIe switch",
                                         "below one PCIe switch", "below one host bridge",
                                         "on one NUMA node"};

// 0 for X and NV#, which say nothing of the PCIe tree.
int level_of(PathClass path_class) {
  switch (path_class) {
    case PathClass::kPix:
      return kPixLevel;
    case PathClass::kPxb:
      return kPxbLevel;
    case PathClass::kPhb:
      return kPhbLevel;
    case PathClass::kNode:
      return kNodeLevel;
    case PathClass::kSys:
      return kSysLevel;
    case PathClass::kSelf:
    case PathClass::kNvlink:
      return 0;
  }
  RAILSIM_UNREACHABLE("every PathClass has a level");
}

using sim::at;

class UnionFind {
 public:
  explicit UnionFind(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }

  int find(int i) {
    while (parent_[at(i)] != i) {
      parent_[at(i)] = parent_[at(parent_[at(i)])];
      i = parent_[at(i)];
    }
    return i;
  }

  void join(int a, int b) { parent_[at(find(a))] = find(b); }

 private:
  std::vector<int> parent_;
};

// The groups of one level as indices 0.. in the order of their first device.
std::vector<int> group_numbers(UnionFind& groups, int devices) {
  std::map<int, int> number_of_root;
  std::vector<int> numbers;
  for (int d = 0; d < devices; ++d) {
    const auto [it, added] =
        number_of_root.emplace(groups.find(d), static_cast<int>(number_of_root.size()));
    numbers.push_back(it->second);
  }
  return numbers;
}

bool is_gpu_name(std::string_view name) {
  return name.size() > 3 && name.starts_with("GPU") &&
         std::all_of(name.begin() + 3, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<int> numa_id_of(std::string_view text) {
  if (text.empty() || text.size() > 4 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::stoi(std::string(text));
}

// One import: the dump read into a symmetric matrix of levels, then the groups, then the node.
class Importer {
 public:
  Importer(const NvidiaSmiTopo& topo, const std::string& file, const Ibdev2netdevOutput* ports)
      : topo_(topo), file_(file), ports_(ports) {}

  TopoImport run() {
    read_devices();
    read_cells();
    read_affinity();
    build_groups();
    check_groups();
    build_numa_nodes();
    build_pcie_tree();
    build_nvlink();
    apply_reference();
    build_nics();
    describe();
    return std::move(result_);
  }

 private:
  const NvidiaSmiTopo& topo_;
  const std::string& file_;
  const Ibdev2netdevOutput* ports_;
  TopoImport result_;
  models::NodeSpec& node_ = result_.node;
  int devices_ = 0;
  int gpus_ = 0;
  std::vector<std::vector<std::optional<TopoLink>>> cells_;  // [row][column], both halves
  std::vector<std::optional<int>> numa_ids_;                 // per GPU, from NUMA Affinity
  std::vector<std::string> cpus_;                            // per GPU, CPU Affinity as printed
  std::vector<UnionFind> groups_;                            // [level - 1]
  std::vector<std::vector<int>> group_of_;                   // [level - 1][device]
  std::vector<int> numa_index_of_group_;                     // level-4 group -> numa_nodes index
  models::Nic reference_nic_;  // the models and rates of the reference preset's compute NIC
  models::Transport fabric_ = models::Transport::kInfiniband;  // that of the compute NICs

  bool has_row(int d) const { return at(d) < topo_.rows.size(); }

  bool is_gpu(int d) const { return d < gpus_; }

  const std::string& name(int d) const { return topo_.devices[at(d)]; }

  // The line of the row a cell was read from: row a when the dump has it, else row b.
  int line_of(int a, int b) const {
    const std::size_t rows = topo_.rows.size();
    return at(a) < rows ? topo_.rows[at(a)].line : topo_.rows.at(at(b)).line;
  }

  [[noreturn]] void fail_at_cell(int a, int b, const std::string& what) const {
    if (at(a) >= topo_.rows.size()) {
      std::swap(a, b);
    }
    throw ParseError(file_, line_of(a, b),
                     fmt::format("{}, column {}: {}", name(a), name(b), what));
  }

  int level(int a, int b) const {
    const std::optional<TopoLink>& cell = cells_[at(a)][at(b)];
    return cell ? level_of(cell->path_class) : 0;
  }

  void read_devices() {
    devices_ = static_cast<int>(topo_.devices.size());
    for (int d = 0; d < devices_; ++d) {
      if (!is_gpu_name(name(d))) {
        continue;
      }
      if (d != gpus_ || name(d) != fmt::format("GPU{}", d)) {
        const int line = topo_.rows.empty() ? 0 : topo_.rows.front().line - 1;
        throw ParseError(file_, line,
                         fmt::format("expected GPU0, GPU1, ... in order before the NICs, got {} "
                                     "as column {}",
                                     name(d), d));
      }
      ++gpus_;
    }
  }

  // Both halves of the matrix, checked against each other where the dump has both rows.
  void read_cells() {
    cells_.assign(at(devices_), std::vector<std::optional<TopoLink>>(at(devices_)));
    for (std::size_t r = 0; r < topo_.rows.size(); ++r) {
      const auto row = static_cast<int>(r);
      for (int c = 0; c < devices_; ++c) {
        const TopoLink& link = topo_.rows[r].links.at(at(c));
        if (c == row) {
          continue;
        }
        if (link.path_class == PathClass::kNvlink && (!is_gpu(row) || !is_gpu(c))) {
          fail_at_cell(row, c,
                       fmt::format("expected a PCIe class (NVLink joins GPUs only), got {}",
                                   to_string(link)));
        }
        const std::optional<TopoLink>& mirror = cells_[at(c)][r];
        if (mirror && *mirror != link) {
          fail_at_cell(row, c,
                       fmt::format("expected {}, as row {} has in column {} (the matrix of a "
                                   "node is symmetric), got {}",
                                   to_string(*mirror), name(c), name(row), to_string(link)));
        }
        cells_[r][at(c)] = link;
        cells_[at(c)][r] = link;
      }
    }
    if (topo_.truncated) {
      result_.notes.push_back(fmt::format(
          "the dump ends before the row of {}: cells between devices whose rows are both missing "
          "are not in it, and the imported tree fills them in unchecked",
          name(static_cast<int>(topo_.rows.size()))));
    }
  }

  std::optional<std::size_t> affinity_column(std::string_view column) const {
    const auto& columns = topo_.affinity_columns;
    const auto it = std::find(columns.begin(), columns.end(), column);
    if (it == columns.end()) {
      return std::nullopt;
    }
    return static_cast<std::size_t>(it - columns.begin());
  }

  void read_affinity() {
    numa_ids_.assign(at(gpus_), std::nullopt);
    cpus_.assign(at(gpus_), "N/A");
    const std::optional<std::size_t> numa_column = affinity_column("NUMA Affinity");
    const std::optional<std::size_t> cpu_column = affinity_column("CPU Affinity");
    bool unknown_numa = false;
    for (int g = 0; g < gpus_ && at(g) < topo_.rows.size(); ++g) {
      const TopoRow& row = topo_.rows[at(g)];
      if (cpu_column && *cpu_column < row.affinity.size()) {
        cpus_[at(g)] = row.affinity[*cpu_column];
      }
      if (numa_column && *numa_column < row.affinity.size()) {
        numa_ids_[at(g)] = numa_id_of(row.affinity[*numa_column]);
        if (numa_ids_[at(g)] && *numa_ids_[at(g)] > kMaxNumaId) {
          throw ParseError(file_, row.line,
                           fmt::format("{}, NUMA Affinity: expected a NUMA node from 0 to {}, got "
                                       "{}",
                                       name(g), kMaxNumaId, *numa_ids_[at(g)]));
        }
      }
      unknown_numa = unknown_numa || !numa_ids_[at(g)];
    }
    if (unknown_numa) {
      result_.notes.emplace_back(
          "some GPUs have no single NUMA Affinity (N/A, a range, or no column): their NUMA "
          "nodes are numbered from the matrix's SYS structure");
    }
  }

  // Level L joins every pair known to be at most L apart; NODE also joins GPUs that print the
  // same NUMA node.
  void build_groups() {
    groups_.assign(kLevels, UnionFind(at(devices_)));
    for (int l = 1; l <= kLevels; ++l) {
      UnionFind& groups = groups_[at(l - 1)];
      for (int a = 0; a < devices_; ++a) {
        for (int b = a + 1; b < devices_; ++b) {
          const int known = level(a, b);
          if (known > 0 && known <= l) {
            groups.join(a, b);
          }
          if (l == kNodeLevel && is_gpu(b) && numa_ids_[at(a)] &&
              numa_ids_[at(a)] == numa_ids_[at(b)]) {
            groups.join(a, b);
          }
        }
      }
    }
    group_of_.clear();
    for (UnionFind& groups : groups_) {
      group_of_.push_back(group_numbers(groups, devices_));
    }
  }

  // "GPU0 PIX NIC0 PXB NIC3": the known pairs that put a and b in one level-l group.
  std::string chain(int l, int a, int b) const {
    std::vector<int> previous(at(devices_), -1);
    std::queue<int> next;
    next.push(a);
    previous[at(a)] = a;
    while (!next.empty() && previous[at(b)] < 0) {
      const int d = next.front();
      next.pop();
      for (int e = 0; e < devices_; ++e) {
        const int known = level(d, e);
        const bool same_numa = l == kNodeLevel && is_gpu(d) && is_gpu(e) && d != e &&
                               numa_ids_[at(d)] && numa_ids_[at(d)] == numa_ids_[at(e)];
        if (previous[at(e)] < 0 && ((known > 0 && known <= l) || same_numa)) {
          previous[at(e)] = d;
          next.push(e);
        }
      }
    }
    RAILSIM_ASSERT(previous[at(b)] >= 0, "devices of one group are linked by known pairs");
    std::string text = name(b);
    for (int d = b; d != a; d = previous[at(d)]) {
      const int p = previous[at(d)];
      const int known = level(p, d);
      const std::string link = known > 0 && known <= l
                                   ? kLevelNames[known]
                                   : fmt::format("(both NUMA Affinity {})", *numa_ids_[at(d)]);
      text = fmt::format("{} {} {}", name(p), link, text);
    }
    return text;
  }

  // A known pair inside a group its class excludes; GPUs of one NUMA node printing different
  // NUMA ids or CPU lists.
  void check_groups() {
    for (int l = 1; l <= kLevels; ++l) {
      const std::vector<int>& group = group_of_[at(l - 1)];
      for (int a = 0; a < devices_; ++a) {
        for (int b = a + 1; b < devices_; ++b) {
          if (group[at(a)] != group[at(b)]) {
            continue;
          }
          if (level(a, b) > l) {
            fail_at_cell(a, b,
                         fmt::format("expected {} or closer, as {} puts them {}, got {}; no PCIe "
                                     "tree gives these classes",
                                     kLevelNames[l], chain(l, a, b), kGroupMeaning[l],
                                     kLevelNames[level(a, b)]));
          }
          if (l == kNodeLevel && is_gpu(b)) {
            check_same_numa(a, b);
          }
        }
      }
    }
  }

  void check_same_numa(int a, int b) const {
    if (!has_row(a) || !has_row(b)) {
      return;
    }
    const TopoRow& row = topo_.rows[at(b)];
    if (numa_ids_[at(a)] && numa_ids_[at(b)] && numa_ids_[at(a)] != numa_ids_[at(b)]) {
      throw ParseError(file_, row.line,
                       fmt::format("{}, NUMA Affinity: expected {}, as {} puts {} and {} {}, got "
                                   "{}",
                                   name(b), *numa_ids_[at(a)], chain(kNodeLevel, a, b), name(a),
                                   name(b), kGroupMeaning[kNodeLevel], *numa_ids_[at(b)]));
    }
    if (cpus_[at(a)] != cpus_[at(b)]) {
      throw ParseError(file_, row.line,
                       fmt::format("{}, CPU Affinity: expected {}, as {} of the same NUMA node "
                                   "(railsim keeps one CPU list per NUMA node), got {}",
                                   name(b), cpus_[at(a)], name(a), cpus_[at(b)]));
    }
  }

  // NUMA ids from the GPUs; groups without a GPU's id take the smallest free ones. The lower
  // half of the ids goes on socket 0, the upper half on socket 1, as Linux numbers NUMA nodes
  // socket by socket; the matrix itself cannot tell the sockets apart (SYS is both).
  void build_numa_nodes() {
    const std::vector<int>& group = group_of_[at(kNodeLevel - 1)];
    const int count = 1 + *std::max_element(group.begin(), group.end());
    std::vector<std::optional<int>> ids(at(count));
    std::vector<std::string> cpus(at(count), "N/A");
    for (int g = 0; g < gpus_; ++g) {
      if (numa_ids_[at(g)]) {
        ids[at(group[at(g)])] = numa_ids_[at(g)];
      }
      if (has_row(g)) {
        cpus[at(group[at(g)])] = cpus_[at(g)];
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
    numa_index_of_group_.assign(at(count), 0);
    for (int n = 0; n < count; ++n) {
      const int g = order[at(n)];
      numa_index_of_group_[at(g)] = n;
      node_.numa_nodes.push_back({*ids[at(g)], n < on_first ? 0 : sockets - 1, cpus[at(g)]});
    }
    node_.sockets.resize(at(sockets));
    if (!made_up.empty()) {
      result_.notes.push_back(fmt::format(
          "NUMA node{} {} hold{} NICs only or GPUs without a NUMA Affinity: id{} and CPU list "
          "(N/A) made up",
          made_up.size() == 1 ? "" : "s", fmt::join(made_up, ", "), made_up.size() == 1 ? "s" : "",
          made_up.size() == 1 ? "" : "s"));
    }
    if (sockets > 1) {
      result_.assumed.push_back(fmt::format(
          "sockets: NUMA nodes {} on socket 0, the rest on socket 1 (SYS does not tell sockets "
          "apart)",
          fmt::join(std::vector<int>(used.begin(), std::next(used.begin(), on_first)), ", ")));
    }
  }

  // One host bridge per PHB group; per PXB group a switch for each PIX group, below a common
  // switch when there are several; a device alone in its PXB group hangs from the host bridge.
  void build_pcie_tree() {
    const std::vector<int>& pix = group_of_[at(kPixLevel - 1)];
    const std::vector<int>& pxb = group_of_[at(kPxbLevel - 1)];
    const std::vector<int>& phb = group_of_[at(kPhbLevel - 1)];
    const std::vector<int>& numa = group_of_[at(kNodeLevel - 1)];
    std::map<int, int> bridge_of_phb;
    std::map<int, models::PcieParent> top_of_pxb;
    std::map<int, models::PcieParent> switch_of_pix;
    std::vector<models::PcieParent> parents(at(devices_));
    for (int d = 0; d < devices_; ++d) {
      if (bridge_of_phb.count(phb[at(d)]) == 0) {
        bridge_of_phb[phb[at(d)]] = static_cast<int>(node_.host_bridges.size());
        node_.host_bridges.push_back({numa_index_of_group_[at(numa[at(d)])]});
      }
      const models::PcieParent bridge{models::PcieParent::Kind::kHostBridge,
                                      bridge_of_phb[phb[at(d)]]};
      std::set<int> pix_groups;
      int members = 0;
      for (int e = 0; e < devices_; ++e) {
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
        top_of_pxb[pxb[at(d)]] = add_switch(bridge);
      }
      if (switch_of_pix.count(pix[at(d)]) == 0) {
        switch_of_pix[pix[at(d)]] =
            add_switch(pix_groups.size() > 1 ? top_of_pxb[pxb[at(d)]] : bridge);
      }
      parents[at(d)] = switch_of_pix[pix[at(d)]];
    }
    node_.gpus.resize(at(gpus_));
    for (int g = 0; g < gpus_; ++g) {
      node_.gpus[at(g)].parent = parents[at(g)];
    }
    node_.nics.resize(at(devices_ - gpus_));
    for (int d = gpus_; d < devices_; ++d) {
      node_.nics[at(d - gpus_)].parent = parents[at(d)];
    }
  }

  models::PcieParent add_switch(models::PcieParent parent) {
    node_.switches.push_back({parent, {}});
    return {models::PcieParent::Kind::kSwitch, static_cast<int>(node_.switches.size() - 1)};
  }

  // NV# on every GPU pair (of more than two GPUs) is an NVSwitch domain; on some pairs, bridges.
  // Either way the model holds one link count.
  void build_nvlink() {
    int first_a = -1;
    int first_b = -1;
    int count = 0;
    int nvlink_pairs = 0;
    int pcie_pairs = 0;
    for (int a = 0; a < gpus_; ++a) {
      for (int b = a + 1; b < gpus_; ++b) {
        const std::optional<TopoLink>& cell = cells_[at(a)][at(b)];
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
          fail_at_cell(a, b,
                       fmt::format("expected NV{} as {} and {} have (railsim's NVLink domain "
                                   "has one link count for every pair), got {}",
                                   count, name(first_a), name(first_b), to_string(*cell)));
        }
        ++nvlink_pairs;
        node_.nvlink.bridged_pairs.emplace_back(a, b);
      }
    }
    if (nvlink_pairs == 0) {
      node_.nvlink.bridged_pairs.clear();
      return;
    }
    node_.nvlink.links_per_gpu = count;
    if (pcie_pairs == 0 && gpus_ > 2) {
      node_.nvlink.kind = models::NvlinkKind::kSwitch;
      node_.nvlink.bridged_pairs.clear();
      return;
    }
    node_.nvlink.kind = models::NvlinkKind::kBridge;
  }

  // What the dump cannot show, from the preset of the same NVLink signature (docs/hardware.md
  // gives the presets' sources): NV18 on every pair is an HGX H100/H200 baseboard, NV12 on
  // every pair an HGX A100 one; anything else is taken as A100 PCIe.
  void apply_reference() {
    const bool nvswitch = node_.nvlink.kind == models::NvlinkKind::kSwitch;
    const int links = node_.nvlink.links_per_gpu;
    const char* preset = nvswitch && links == 18   ? "dgx-h100"
                         : nvswitch && links == 12 ? "dgx-a100"
                                                   : "a100-pcie-nvlink-bridge";
    const std::string why =
        nvswitch ? fmt::format("NV{} on every GPU pair", links) : "no NVLink switch in the matrix";
    const models::NodeSpec reference = models::node_preset(preset);
    const models::Gpu& gpu = reference.gpus.front();
    for (models::Gpu& g : node_.gpus) {
      g.model = gpu.model + " (assumed)";
      g.link = gpu.link;
    }
    const models::PcieLink uplink = reference.switches.front().uplink;
    for (models::PcieSwitch& s : node_.switches) {
      s.uplink = uplink;
    }
    for (models::CpuSocket& socket : node_.sockets) {
      socket = reference.sockets.front();
      socket.model += " (assumed)";
    }
    node_.inter_socket = node_.sockets.size() > 1 ? reference.inter_socket : sim::Bandwidth{};
    reference_nic_ = *std::find_if(reference.nics.begin(), reference.nics.end(), [](const auto& n) {
      return n.role == models::NicRole::kCompute;
    });
    node_.nvlink.link_rate = reference.nvlink.link_rate;
    node_.nvlink.efficiency = reference.nvlink.efficiency;
    if (nvswitch) {
      node_.nvlink.switch_count = std::max(1, reference.nvlink.switch_count);
    }
    result_.assumed.push_back(fmt::format("GPU model {}, PCIe Gen{} x{} (as the {} preset: {})",
                                          gpu.model, gpu.link.generation, gpu.link.lanes, preset,
                                          why));
    result_.assumed.push_back(fmt::format(
        "CPU {}, {:g} GB/s memory per socket{}", reference.sockets.front().model,
        reference.sockets.front().memory_bandwidth.bytes_per_s / 1e9,
        node_.sockets.size() > 1
            ? fmt::format(", {:g} GB/s between sockets", reference.inter_socket.bytes_per_s / 1e9)
            : ""));
    result_.assumed.push_back(
        fmt::format("NIC model {}, port {:g} Gb/s, PCIe Gen{} x{}", reference_nic_.model,
                    reference_nic_.port_rate.bytes_per_s * 8 / 1e9, reference_nic_.link.generation,
                    reference_nic_.link.lanes));
    if (!node_.switches.empty()) {
      result_.assumed.push_back(
          fmt::format("PCIe switch uplinks Gen{} x{}", uplink.generation, uplink.lanes));
    }
    if (node_.nvlink.kind != models::NvlinkKind::kNone) {
      result_.assumed.push_back(fmt::format(
          "NVLink {:g} GB/s per link and direction{}", node_.nvlink.link_rate.bytes_per_s / 1e9,
          nvswitch ? fmt::format(", {} NVSwitch chips", node_.nvlink.switch_count) : ""));
    }
  }

  // The ibdev2netdev ports of one verbs device.
  std::vector<const Ibdev2netdevPort*> ports_of(const std::string& device) const {
    std::vector<const Ibdev2netdevPort*> found;
    if (ports_ != nullptr) {
      for (const Ibdev2netdevPort& port : ports_->ports) {
        if (port.device == device) {
          found.push_back(&port);
        }
      }
    }
    return found;
  }

  static bool port_up(const Ibdev2netdevPort& port) {
    return port.netdev_up && (!port.details || port.details->port_state == "ACTIVE");
  }

  // IPoIB interfaces are named ib*; any other netdev (enp*, eth*, bond*) is Ethernet: RoCE.
  static models::Transport transport_of(const Ibdev2netdevPort& port) {
    return port.netdev.starts_with("ib") ? models::Transport::kInfiniband
                                         : models::Transport::kRoce;
  }

  struct NicState {
    bool listed = false;
    bool up = true;
    models::Transport transport = models::Transport::kInfiniband;
  };

  NicState state_of(const std::string& device) const {
    NicState state;
    const std::vector<const Ibdev2netdevPort*> ports = ports_of(device);
    if (ports.empty()) {
      return state;
    }
    state.listed = true;
    state.up = std::any_of(ports.begin(), ports.end(), [](const auto* p) { return port_up(*p); });
    const auto up =
        std::find_if(ports.begin(), ports.end(), [](const auto* p) { return port_up(*p); });
    state.transport = transport_of(**(up == ports.end() ? ports.begin() : up));
    return state;
  }

  std::string nic_name(int d) const {
    for (const auto& [column, device] : topo_.nic_legend) {
      if (column == name(d)) {
        return device;
      }
    }
    return name(d);
  }

  // Names, states and models; then the compute NICs: each GPU in turn takes the closest free
  // NIC that is up and of the fabric's link layer (ties to the lower index), so every GPU has
  // its own rail and the NICs no GPU took (storage, in-band management) carry no collectives.
  void build_nics() {
    const int nics = devices_ - gpus_;
    std::vector<NicState> states;
    std::map<models::Transport, int> near_gpu;
    for (int n = 0; n < nics; ++n) {
      models::Nic& nic = node_.nics[at(n)];
      nic.name = nic_name(gpus_ + n);
      states.push_back(state_of(nic.name));
      nic.transport = states.back().transport;
      nic.model = reference_nic_.model + " (assumed)";
      const std::vector<const Ibdev2netdevPort*> ports = ports_of(nic.name);
      if (!ports.empty() && ports.front()->details &&
          !ports.front()->details->description.empty()) {
        nic.model = ports.front()->details->description;
      }
      nic.link = reference_nic_.link;
      nic.port_rate = reference_nic_.port_rate;
      nic.role = models::NicRole::kStorage;
      bool shares_switch = false;
      for (int g = 0; g < gpus_; ++g) {
        const int l = level(g, gpus_ + n);
        shares_switch = shares_switch || (l > 0 && l <= kPxbLevel);
      }
      if (states.back().up && shares_switch) {
        ++near_gpu[nic.transport];
      }
      if (ports_ != nullptr && !states.back().listed) {
        result_.notes.push_back(
            fmt::format("{} is not in the ibdev2netdev listing: taken as up", nic.name));
      }
    }
    // One fabric carries the collectives, so one link layer: that of most NICs near a GPU.
    fabric_ = near_gpu[models::Transport::kRoce] > near_gpu[models::Transport::kInfiniband]
                  ? models::Transport::kRoce
                  : models::Transport::kInfiniband;
    std::vector<bool> taken(at(nics), false);
    for (int g = 0; g < gpus_; ++g) {
      int best = -1;
      for (int n = 0; n < nics; ++n) {
        const int l = level(g, gpus_ + n);
        const bool usable = !taken[at(n)] && states[at(n)].up &&
                            (!states[at(n)].listed || states[at(n)].transport == fabric_) && l > 0;
        if (usable && (best < 0 || l < level(g, gpus_ + best))) {
          best = n;
        }
      }
      if (best >= 0) {
        taken[at(best)] = true;
        node_.nics[at(best)].role = models::NicRole::kCompute;
      }
    }
    std::vector<std::string> down;
    std::vector<std::string> storage;
    for (int n = 0; n < nics; ++n) {
      models::Nic& nic = node_.nics[at(n)];
      if (!states[at(n)].listed) {
        nic.transport = fabric_;
      }
      if (!states[at(n)].up) {
        down.push_back(nic.name);
      } else if (nic.role == models::NicRole::kStorage) {
        storage.push_back(nic.name);
      }
    }
    if (!down.empty()) {
      result_.notes.push_back(fmt::format("down in ibdev2netdev, so storage (no collectives): {}",
                                          fmt::join(down, ", ")));
    }
    if (!storage.empty()) {
      result_.notes.push_back(
          fmt::format("no GPU took them as its closest NIC, so storage (no collectives): {}",
                      fmt::join(storage, ", ")));
    }
    if (ports_ == nullptr && nics > 0) {
      result_.assumed.emplace_back(
          "every NIC is up and InfiniBand (give --ibdev2netdev to read states and link layers)");
    }
  }

  void describe() {
    node_.name = std::filesystem::path(file_).stem().string();
    if (node_.name.empty()) {
      node_.name = "imported";
    }
    int compute = 0;
    for (const models::Nic& nic : node_.nics) {
      compute += nic.role == models::NicRole::kCompute ? 1 : 0;
    }
    const char* nvlink = node_.nvlink.kind == models::NvlinkKind::kSwitch   ? "NVSwitch"
                         : node_.nvlink.kind == models::NvlinkKind::kBridge ? "NVLink bridges"
                                                                            : "no NVLink";
    node_.description = fmt::format(
        "imported from {}: {} GPUs, {}, {} NICs ({} compute, {}); models and rates assumed",
        std::filesystem::path(file_).filename().string(), gpus_, nvlink, node_.nics.size(), compute,
        models::transport_name(fabric_));
  }
};

}  // namespace

TopoImport import_nvidia_smi_topo(const NvidiaSmiTopo& topo,
                                  const std::string& file,
                                  const Ibdev2netdevOutput* ibdev2netdev) {
  return Importer(topo, file, ibdev2netdev).run();
}

}  // namespace railsim::calibrate::parse
