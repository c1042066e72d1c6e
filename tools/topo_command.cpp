// File: tools/topo_command.cpp
// `railsim topo --system PRESET [--format text|json]`: a server's GPU x GPU and GPU x NIC
// distance matrix in the layout of `nvidia-smi topo -m` (tab-separated, legend and NIC legend
// after it), so a real dump and the model can be laid side by side.
#include "models/hardware/node_presets.hpp"
#include "models/hardware/topo_matrix.hpp"
#include "sim/input_error.hpp"
#include "tools/command.hpp"
#include "tools/command_line.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;

constexpr const char* kLegend =
    "Legend:\n\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
    "(e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
    "within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
    "Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n";

void print_text(const models::NodeSpec& node, const models::TopoMatrix& m, std::ostream& out) {
  fmt::print(out, "{}: {}\n\n", node.name, node.description);
  fmt::print(out, "\t{}\tCPU Affinity\tNUMA Affinity\n", fmt::join(m.columns, "\t"));
  for (const models::TopoMatrix::Row& row : m.rows) {
    fmt::print(out, "{}", row.name);
    for (const std::string& cell : row.cells) {
      fmt::print(out, "\t{}", cell == "X" ? " X " : cell);  // nvidia-smi pads the diagonal
    }
    if (!row.numa_affinity.empty()) {
      fmt::print(out, "\t{}\t{}", row.cpu_affinity, row.numa_affinity);
    }
    fmt::print(out, "\n");
  }
  fmt::print(out, "\n{}", kLegend);
  if (!m.nic_legend.empty()) {
    fmt::print(out, "\nNIC Legend:\n\n");
    for (const auto& [column, device] : m.nic_legend) {
      fmt::print(out, "  {}: {}\n", column, device);
    }
  }
}

void print_json(const models::NodeSpec& node, const models::TopoMatrix& m, std::ostream& out) {
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
  out << doc.dump(2) << "\n";
}

}  // namespace

int run_topo(const std::vector<std::string>& args, std::ostream& out) {
  std::string system;
  std::string format;
  po::options_description options("railsim topo --system PRESET [--format text|json]");
  options.add_options()(
      "system", po::value(&system)->required(),
      fmt::format("a node preset: {}", fmt::join(models::node_preset_names(), ", ")).c_str())(
      "format", po::value(&format)->default_value("text"), "text (as nvidia-smi topo -m) or json");
  po::variables_map vm;
  if (!parse_command_line(args, options,
                          "Prints a server's GPU and NIC distance matrix as nvidia-smi topo -m "
                          "does.",
                          out, vm)) {
    return 0;
  }
  if (format != "text" && format != "json") {
    throw sim::InputError("--format: expected text or json, got '" + format + "'");
  }
  const models::NodeSpec node = models::node_preset(system);
  const models::TopoMatrix matrix = models::topo_matrix(node);
  if (format == "json") {
    print_json(node, matrix, out);
  } else {
    print_text(node, matrix, out);
  }
  return 0;
}

}  // namespace railsim::tools
