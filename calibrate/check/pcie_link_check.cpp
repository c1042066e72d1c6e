// File: calibrate/check/pcie_link_check.cpp
#include "calibrate/check/pcie_link_check.hpp"

#include "calibrate/parse/text_input.hpp"
#include "models/hardware/pcie.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

namespace railsim::calibrate::check {

using parse::Evidence;
using parse::Ibdev2netdevPort;
using parse::LspciFunction;
using parse::LspciOutput;
using parse::NodeEvidence;
using parse::PcieLinkReading;

namespace {

struct Designed {
  std::string element;  // "node-a.gpu3", "node-a.mlx5_0", "node-a.0000:1b:00.0"
  double speed_gts = 0.0;
  int width = 0;
  Severity cost = Severity::kMajor;  // of a link that trained below it
  bool from_design = true;           // else from the function's own LnkCap
};

bool is_gpu(const LspciFunction& f) {
  return (f.class_name == "3D controller" || f.class_name == "VGA compatible controller") &&
         f.description.starts_with("NVIDIA");
}

bool is_network(const LspciFunction& f) {
  return f.class_name == "Infiniband controller" || f.class_name == "Ethernet controller";
}

std::string link_text(double speed_gts, int width) {
  return fmt::format("{:g} GT/s x{}", speed_gts, width);
}

// What the link of each GPU and NIC function should be; nothing for other functions.
std::vector<std::optional<Designed>> designed_links(const NodeEvidence& node,
                                                    const models::NodeSpec& design,
                                                    const LspciOutput& lspci) {
  std::vector<std::optional<Designed>> links(lspci.functions.size());
  std::size_t gpu = 0;
  for (std::size_t i = 0; i < lspci.functions.size(); ++i) {
    const LspciFunction& f = lspci.functions[i];
    if (is_gpu(f) && gpu < design.gpus.size()) {
      const models::PcieLink& link = design.gpus[gpu].link;
      links[i] = Designed{fmt::format("{}.gpu{}", node.name, gpu),
                          models::pcie_transfer_rate_gts(link.generation), link.lanes};
      ++gpu;
      continue;
    }
    if (!is_network(f)) {
      continue;
    }
    std::optional<std::string> device;
    if (node.ibdev2netdev) {
      for (const Ibdev2netdevPort& port : node.ibdev2netdev->output.ports) {
        if (port.details && port.details->pci_address == f.address) {
          device = port.device;
        }
      }
    }
    const auto nic =
        std::find_if(design.nics.begin(), design.nics.end(),
                     [&](const models::Nic& n) { return device && n.name == *device; });
    if (nic != design.nics.end()) {
      links[i] =
          Designed{node.name + "." + nic->name,
                   models::pcie_transfer_rate_gts(nic->link.generation), nic->link.lanes,
                   nic->role == models::NicRole::kCompute ? Severity::kMajor : Severity::kMinor};
    } else if (f.capable) {
      links[i] = Designed{node.name + "." + f.address, f.capable->speed_gts, f.capable->width,
                          Severity::kMajor, false};
    }
  }
  return links;
}

}  // namespace

void check_pcie_links(const NodeEvidence& node,
                      const models::NodeSpec& design,
                      std::vector<Finding>& out) {
  if (!node.lspci) {
    out.push_back({CheckLayer::kTopology, "PCIe link", node.name, "", "", "", Verdict::kSkipped,
                   Severity::kNone,
                   "no lspci -vv of this node (lspci/" + node.name + ".txt, run as root)"});
    return;
  }
  const Evidence<LspciOutput>& log = *node.lspci;
  const std::vector<std::optional<Designed>> links = designed_links(node, design, log.output);
  int read = 0;
  std::vector<Finding> failed;
  for (std::size_t i = 0; i < links.size(); ++i) {
    const LspciFunction& f = log.output.functions[i];
    if (!links[i] || !f.trained) {
      continue;
    }
    ++read;
    const Designed& want = *links[i];
    const PcieLinkReading& got = *f.trained;
    if (got.speed_gts >= want.speed_gts && got.width >= want.width) {
      continue;
    }
    const bool down = got.width == 0;
    failed.push_back(
        {CheckLayer::kTopology, "PCIe link", want.element, parse::place(log.file, got.line),
         fmt::format("{}{}", link_text(want.speed_gts, want.width),
                     want.from_design ? ", as designed" : ", its LnkCap"),
         fmt::format("{}{}", link_text(got.speed_gts, got.width),
                     f.capable ? fmt::format(" (LnkCap {})",
                                             link_text(f.capable->speed_gts, f.capable->width))
                               : std::string()),
         Verdict::kFail, down ? Severity::kCritical : want.cost,
         down ? "the link is down: reseat the card, check the slot and its riser, then dmesg "
                "for PCIe errors (AER)"
              : "the link trained below its design: reseat the card or cable, check the "
                "slot's width and the BIOS's link speed and bifurcation settings, and "
                "whether it recovers after a reboot (lspci -vv LnkSta)"});
  }
  if (read == 0) {
    out.push_back({CheckLayer::kTopology, "PCIe link", node.name, log.file,
                   "LnkSta of its GPUs and NICs", "none readable", Verdict::kSkipped,
                   Severity::kNone,
                   "lspci printed no link status of a GPU or NIC: run it as root (sudo lspci "
                   "-vv), or the capabilities read <access denied>"});
    return;
  }
  if (failed.empty()) {
    out.push_back({CheckLayer::kTopology, "PCIe link", node.name, log.file,
                   fmt::format("{} GPU and NIC links at their designed speed and width", read),
                   "as designed", Verdict::kPass, Severity::kNone, ""});
    return;
  }
  // Most links below the design is another server than the design's, said once, as the
  // topology check says it of the distances.
  if (2 * failed.size() > static_cast<std::size_t>(read) && read >= 4) {
    out.push_back(
        {CheckLayer::kTopology, "PCIe link", node.name, log.file,
         fmt::format("{} GPU and NIC links as designed ({}, ...)", read, failed.front().expected),
         fmt::format("{} of them below it ({}, ...)", failed.size(), failed.front().measured),
         Verdict::kFail, Severity::kMajor,
         "not the design's server, or not its slots: compare the node's lspci -vv "
         "and nvidia-smi topo -m with the design (railsim topo)"});
    return;
  }
  out.insert(out.end(), failed.begin(), failed.end());
}

}  // namespace railsim::calibrate::check
