// File: calibrate/parse/topo_import.cpp
// The import in its steps: the dump read (topo_cells.hpp), its devices grouped level by level
// (topo_groups.hpp), the server's structure built from the groups (topo_tree.hpp), what the dump
// cannot show taken from a reference preset, then the NICs (topo_nics.hpp) and the description.
#include "calibrate/parse/topo_import.hpp"

#include "calibrate/parse/topo_cells.hpp"
#include "calibrate/parse/topo_groups.hpp"
#include "calibrate/parse/topo_nics.hpp"
#include "calibrate/parse/topo_tree.hpp"
#include "models/hardware/node_presets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace railsim::calibrate::parse {
namespace {

// What the dump cannot show, from the preset `like` names, or else the preset of the same
// NVLink signature (docs/hardware.md gives the presets' sources): NV18 on every pair is an HGX
// H100/H200 baseboard (a B200 one shows NV18 too, hence `like`), NV12 on every pair an HGX
// A100 one; anything else is taken as A100 PCIe. Returns the reference preset's compute NIC,
// whose models and rates the NICs take.
models::Nic apply_reference(TopoImport& import, std::string_view like) {
  models::NodeSpec& node = import.node;
  const bool nvswitch = node.nvlink.kind == models::NvlinkKind::kSwitch;
  const int links = node.nvlink.links_per_gpu;
  const std::string preset(!like.empty()             ? like
                           : nvswitch && links == 18 ? "dgx-h100"
                           : nvswitch && links == 12 ? "dgx-a100"
                                                     : "a100-pcie-nvlink-bridge");
  const std::string why = !like.empty() ? "given with --like"
                          : nvswitch    ? fmt::format("NV{} on every GPU pair", links)
                                        : "no NVLink switch in the matrix";
  const models::NodeSpec reference = models::node_preset(preset);
  const models::Gpu& gpu = reference.gpus.front();
  for (models::Gpu& g : node.gpus) {
    g.model = gpu.model + " (assumed)";
    g.link = gpu.link;
  }
  const models::PcieLink uplink = reference.switches.front().uplink;
  for (models::PcieSwitch& s : node.switches) {
    s.uplink = uplink;
  }
  for (models::CpuSocket& socket : node.sockets) {
    socket = reference.sockets.front();
    socket.model += " (assumed)";
  }
  node.inter_socket = node.sockets.size() > 1 ? reference.inter_socket : sim::Bandwidth{};
  models::Nic reference_nic =
      *std::find_if(reference.nics.begin(), reference.nics.end(),
                    [](const auto& n) { return n.role == models::NicRole::kCompute; });
  node.nvlink.link_rate = reference.nvlink.link_rate;
  node.nvlink.efficiency = reference.nvlink.efficiency;
  if (nvswitch) {
    node.nvlink.switch_count = std::max(1, reference.nvlink.switch_count);
  }
  import.assumed.push_back(fmt::format("GPU model {}, PCIe Gen{} x{} (as the {} preset: {})",
                                       gpu.model, gpu.link.generation, gpu.link.lanes, preset,
                                       why));
  import.assumed.push_back(fmt::format(
      "CPU {}, {:g} GB/s memory per socket{}", reference.sockets.front().model,
      reference.sockets.front().memory_bandwidth.bytes_per_s / 1e9,
      node.sockets.size() > 1
          ? fmt::format(", {:g} GB/s between sockets", reference.inter_socket.bytes_per_s / 1e9)
          : ""));
  import.assumed.push_back(fmt::format("NIC model {}, port {:g} Gb/s, PCIe Gen{} x{}",
                                       reference_nic.model,
                                       reference_nic.port_rate.bytes_per_s * 8 / 1e9,
                                       reference_nic.link.generation, reference_nic.link.lanes));
  if (!node.switches.empty()) {
    import.assumed.push_back(
        fmt::format("PCIe switch uplinks Gen{} x{}", uplink.generation, uplink.lanes));
  }
  if (node.nvlink.kind != models::NvlinkKind::kNone) {
    import.assumed.push_back(fmt::format(
        "NVLink {:g} GB/s per link and direction{}", node.nvlink.link_rate.bytes_per_s / 1e9,
        nvswitch ? fmt::format(", {} NVSwitch chips", node.nvlink.switch_count) : ""));
  }
  return reference_nic;
}

void describe(const std::string& file, int gpus, models::Transport fabric, models::NodeSpec& node) {
  node.name = std::filesystem::path(file).stem().string();
  if (node.name.empty()) {
    node.name = "imported";
  }
  int compute = 0;
  for (const models::Nic& nic : node.nics) {
    compute += nic.role == models::NicRole::kCompute ? 1 : 0;
  }
  const char* nvlink = node.nvlink.kind == models::NvlinkKind::kSwitch   ? "NVSwitch"
                       : node.nvlink.kind == models::NvlinkKind::kBridge ? "NVLink bridges"
                                                                         : "no NVLink";
  node.description = fmt::format(
      "imported from {}: {} GPUs, {}, {} NICs ({} compute, {}); models and rates assumed",
      std::filesystem::path(file).filename().string(), gpus, nvlink, node.nics.size(), compute,
      models::transport_name(fabric));
}

}  // namespace

TopoImport import_nvidia_smi_topo(const NvidiaSmiTopo& topo,
                                  const std::string& file,
                                  const Ibdev2netdevOutput* ibdev2netdev,
                                  std::string_view like) {
  TopoImport result;
  const TopoCells cells(topo, file, result.notes);
  const TopoGroups groups(cells);
  build_node_tree(cells, groups, result);
  const models::Nic reference = apply_reference(result, like);
  const models::Transport fabric = build_nics(cells, ibdev2netdev, reference, result);
  describe(file, cells.gpus(), fabric, result.node);
  return result;
}

}  // namespace railsim::calibrate::parse
