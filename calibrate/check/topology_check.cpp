// File: calibrate/check/topology_check.cpp
#include "calibrate/check/topology_check.hpp"

#include "calibrate/parse/text_input.hpp"
#include "models/hardware/topo_matrix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace railsim::calibrate::check {

using parse::Evidence;
using parse::NodeEvidence;
using parse::NvidiaSmiTopo;
using parse::TopoRow;

namespace {

// A device both the design and the dump have: its name, its design index and its dump column.
struct Matched {
  std::string name;  // "GPU3", "mlx5_2"
  std::size_t design = 0;
  std::size_t dump = 0;
  bool gpu = false;
  bool compute_nic = false;
};

// The dump's name for each of its columns: GPUs as printed, NICs by their verbs device.
std::vector<std::string> dump_names(const NvidiaSmiTopo& topo) {
  std::map<std::string, std::string> legend(topo.nic_legend.begin(), topo.nic_legend.end());
  std::vector<std::string> names;
  for (const std::string& device : topo.devices) {
    const auto it = legend.find(device);
    names.push_back(it == legend.end() ? device : it->second);
  }
  return names;
}

std::vector<std::string> design_names(const models::NodeSpec& node) {
  std::vector<std::string> names;
  for (std::size_t g = 0; g < node.gpus.size(); ++g) {
    names.push_back(fmt::format("GPU{}", g));
  }
  for (const models::Nic& nic : node.nics) {
    names.push_back(nic.name);
  }
  return names;
}

// A cell as the dump has it: row i's, or row j's where a truncated dump lacks row i.
std::optional<std::pair<std::string, int>> dump_cell(const NvidiaSmiTopo& topo,
                                                     std::size_t i,
                                                     std::size_t j) {
  for (const auto& [row, column] : {std::pair{i, j}, std::pair{j, i}}) {
    if (row < topo.rows.size()) {
      const TopoRow& r = topo.rows[row];
      return std::pair{to_string(r.links.at(column)), r.line};
    }
  }
  return std::nullopt;
}

struct Mismatch {
  std::size_t a = 0;  // indices into the matched devices
  std::size_t b = 0;
  std::string expected;
  std::string measured;
  int line = 0;
};

// Each mismatch is charged to the device that differs in the most cells, until none is left;
// a device that differs in one cell only shares the blame with the other end.
void blame(const std::string& node_name,
           const std::string& file,
           const std::vector<Matched>& devices,
           std::vector<Mismatch> cells,
           std::vector<Finding>& out) {
  while (!cells.empty()) {
    std::vector<int> count(devices.size(), 0);
    for (const Mismatch& m : cells) {
      ++count[m.a];
      ++count[m.b];
    }
    const std::size_t worst =
        static_cast<std::size_t>(std::max_element(count.begin(), count.end()) - count.begin());
    std::vector<Mismatch> mine;
    std::erase_if(cells, [&](const Mismatch& m) {
      if (m.a != worst && m.b != worst) {
        return false;
      }
      mine.push_back(m);
      return true;
    });
    Finding f;
    f.layer = CheckLayer::kTopology;
    f.check = "GPU/NIC distances";
    f.verdict = Verdict::kFail;
    f.severity = Severity::kMinor;
    std::vector<std::string> expected;
    std::vector<std::string> measured;
    bool nvlink = false;
    for (const Mismatch& m : mine) {
      const Matched& other = devices[m.a == worst ? m.b : m.a];
      expected.push_back(fmt::format("{} to {}", m.expected, other.name));
      measured.push_back(fmt::format("{} to {}", m.measured, other.name));
      const Matched& x = devices[m.a];
      const Matched& y = devices[m.b];
      if ((x.gpu && (y.gpu || y.compute_nic)) || (y.gpu && x.compute_nic)) {
        f.severity = Severity::kMajor;
      }
      nvlink = nvlink || (x.gpu && y.gpu);
    }
    const Matched& d = devices[worst];
    f.element = mine.size() == 1 ? fmt::format("{}.{}/{}", node_name, devices[mine[0].a].name,
                                               devices[mine[0].b].name)
                                 : fmt::format("{}.{}", node_name, d.name);
    f.evidence = parse::place(file, mine.front().line);
    f.expected = fmt::format("{}", fmt::join(expected, ", "));
    f.measured = fmt::format("{}", fmt::join(measured, ", "));
    f.next = nvlink ? "count the GPU's active NVLinks (nvidia-smi nvlink --status) and reseat "
                      "or replace the baseboard part that lost them"
                    : fmt::format(
                          "{} is not in the PCIe slot the design puts it in: compare "
                          "lspci -tv with the design and check the riser and BIOS "
                          "(NPS, ACS) settings",
                          d.name);
    out.push_back(std::move(f));
  }
}

void check_devices(const NodeEvidence& node,
                   const Evidence<NvidiaSmiTopo>& dump,
                   const models::NodeSpec& design,
                   std::vector<Finding>& out,
                   std::vector<Matched>& matched) {
  const std::vector<std::string> have = dump_names(dump.output);
  const std::vector<std::string> want = design_names(design);
  const std::string header = parse::place(
      dump.file, dump.output.rows.empty() ? 1 : std::max(1, dump.output.rows[0].line - 1));
  bool all = true;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto it = std::find(have.begin(), have.end(), want[i]);
    const bool gpu = i < design.gpus.size();
    const bool compute =
        !gpu && design.nics[i - design.gpus.size()].role == models::NicRole::kCompute;
    if (it == have.end()) {
      all = false;
      out.push_back({CheckLayer::kTopology, "device present", node.name + "." + want[i], header,
                     "in the matrix", "absent", Verdict::kFail,
                     gpu || compute ? Severity::kCritical : Severity::kMinor,
                     gpu ? "nvidia-smi does not see the GPU: check nvidia-smi -q and dmesg for Xid "
                           "errors and the GPU's PCIe link"
                         : "the NIC is absent or has another verbs name: check lspci and "
                           "ibv_devices on the node"});
      continue;
    }
    matched.push_back({want[i], i, static_cast<std::size_t>(it - have.begin()), gpu, compute});
  }
  for (const std::string& name : have) {
    if (std::find(want.begin(), want.end(), name) == want.end()) {
      all = false;
      out.push_back({CheckLayer::kTopology, "device present", node.name + "." + name, header,
                     "not in the design", "present", Verdict::kFail, Severity::kMinor,
                     "add it to the design, or find out why the node has it"});
    }
  }
  if (all) {
    out.push_back({CheckLayer::kTopology, "devices present", node.name, header,
                   fmt::format("{} GPUs, {} NICs", design.gpus.size(), design.nics.size()),
                   "as designed", Verdict::kPass, Severity::kNone, ""});
  }
}

void check_distances(const NodeEvidence& node,
                     const Evidence<NvidiaSmiTopo>& dump,
                     const models::TopoMatrix& matrix,
                     const std::vector<Matched>& devices,
                     std::vector<Finding>& out) {
  std::vector<Mismatch> cells;
  int compared = 0;
  for (std::size_t a = 0; a < devices.size(); ++a) {
    for (std::size_t b = a + 1; b < devices.size(); ++b) {
      const auto measured = dump_cell(dump.output, devices[a].dump, devices[b].dump);
      if (!measured) {
        continue;
      }
      ++compared;
      const std::string& expected = matrix.rows[devices[a].design].cells[devices[b].design];
      if (measured->first != expected) {
        cells.push_back({a, b, expected, measured->first, measured->second});
      }
    }
  }
  const std::string first_row =
      parse::place(dump.file, dump.output.rows.empty() ? 1 : dump.output.rows[0].line);
  if (cells.empty()) {
    out.push_back({CheckLayer::kTopology, "GPU/NIC distances", node.name, first_row,
                   fmt::format("{} cells as the design", compared), "all as designed",
                   Verdict::kPass, Severity::kNone, ""});
    return;
  }
  // Most of the matrix differing is not a device out of place but another kind of server.
  if (2 * cells.size() > static_cast<std::size_t>(compared)) {
    out.push_back({CheckLayer::kTopology, "GPU/NIC distances", node.name, first_row,
                   fmt::format("{} cells as the design", compared),
                   fmt::format("{} of them differ, the first {} between {} and {} (the design "
                               "has {})",
                               cells.size(), cells.front().measured, devices[cells.front().a].name,
                               devices[cells.front().b].name, cells.front().expected),
                   Verdict::kFail, Severity::kMajor,
                   "the node is not the server the design describes: check that --system names "
                   "this server type, or make a design from this dump (railsim topo "
                   "--import-nvidia-smi)"});
    return;
  }
  blame(node.name, dump.file, devices, std::move(cells), out);
}

// Each GPU's NUMA node, then its CPU list, against the design's.
void check_affinity(const NodeEvidence& node,
                    const Evidence<NvidiaSmiTopo>& dump,
                    const models::TopoMatrix& matrix,
                    const std::vector<Matched>& devices,
                    std::vector<Finding>& out) {
  const auto column = [&](const char* name) -> std::optional<std::size_t> {
    const auto& columns = dump.output.affinity_columns;
    const auto it = std::find(columns.begin(), columns.end(), name);
    return it == columns.end() ? std::nullopt
                               : std::optional(static_cast<std::size_t>(it - columns.begin()));
  };
  const std::optional<std::size_t> numa = column("NUMA Affinity");
  const std::optional<std::size_t> cpus = column("CPU Affinity");
  if (!numa && !cpus) {
    out.push_back({CheckLayer::kAffinity, "GPU NUMA affinity", node.name, dump.file, "", "",
                   Verdict::kSkipped, Severity::kNone,
                   "the dump has no CPU or NUMA Affinity column"});
    return;
  }
  int checked = 0;
  bool all = true;
  for (const Matched& d : devices) {
    if (!d.gpu || d.dump >= dump.output.rows.size()) {
      continue;
    }
    const TopoRow& row = dump.output.rows[d.dump];
    const models::TopoMatrix::Row& want = matrix.rows[d.design];
    ++checked;
    const std::string where = parse::place(dump.file, row.line);
    if (numa && row.affinity.at(*numa) != want.numa_affinity) {
      all = false;
      out.push_back({CheckLayer::kAffinity, "GPU NUMA affinity", node.name + "." + d.name, where,
                     "NUMA " + want.numa_affinity, "NUMA " + row.affinity[*numa], Verdict::kFail,
                     Severity::kMajor,
                     "the GPU reports another NUMA node than the design: check the BIOS NPS "
                     "setting and numactl -H; jobs pinned by the design cross the socket link"});
    } else if (cpus && row.affinity.at(*cpus) != want.cpu_affinity) {
      all = false;
      out.push_back({CheckLayer::kAffinity, "GPU CPU affinity", node.name + "." + d.name, where,
                     want.cpu_affinity, row.affinity[*cpus], Verdict::kFail, Severity::kMinor,
                     "the NUMA node's CPUs differ from the design (SMT off, or other cores "
                     "isolated): update the design's cpus or the launcher's CPU binding"});
    }
  }
  if (all && checked > 0) {
    out.push_back({CheckLayer::kAffinity, "GPU NUMA affinity", node.name,
                   parse::place(dump.file, dump.output.rows[0].line),
                   fmt::format("{} GPUs on their designed NUMA nodes and CPUs", checked),
                   "as designed", Verdict::kPass, Severity::kNone, ""});
  }
}

}  // namespace

void check_topology(const NodeEvidence& node,
                    const models::NodeSpec& design,
                    std::vector<Finding>& out) {
  if (!node.topo) {
    out.push_back({CheckLayer::kTopology, "GPU/NIC distances", node.name, "", "", "",
                   Verdict::kSkipped, Severity::kNone,
                   "no nvidia-smi topo -m of this node (topo/" + node.name + ".txt)"});
    return;
  }
  const models::TopoMatrix matrix = models::topo_matrix(design);
  std::vector<Matched> devices;
  check_devices(node, *node.topo, design, out, devices);
  check_distances(node, *node.topo, matrix, devices, out);
  check_affinity(node, *node.topo, matrix, devices, out);
}

}  // namespace railsim::calibrate::check
