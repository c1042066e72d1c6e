// File: models/hardware/path_class.cpp
// Distance classes from the PCIe tree: walk both devices up to their host bridges and compare.
#include "models/hardware/path_class.hpp"

#include "sim/assert.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <utility>

namespace railsim::models {
namespace {

PcieParent parent_of(const NodeSpec& node, DeviceRef device) {
  if (device.kind == DeviceRef::Kind::kGpu) {
    return node.gpus.at(static_cast<std::size_t>(device.index)).parent;
  }
  return node.nics.at(static_cast<std::size_t>(device.index)).parent;
}

}  // namespace

const char* to_string(PathClass path_class) {
  switch (path_class) {
    case PathClass::kSelf:
      return "X";
    case PathClass::kNvlink:
      return "NV";
    case PathClass::kPix:
      return "PIX";
    case PathClass::kPxb:
      return "PXB";
    case PathClass::kPhb:
      return "PHB";
    case PathClass::kNode:
      return "NODE";
    case PathClass::kSys:
      return "SYS";
  }
  RAILSIM_UNREACHABLE("every PathClass has a name");
}

std::optional<PathClass> gdr_level_named(std::string_view value) {
  static constexpr std::array<std::pair<std::string_view, PathClass>, 12> kNames = {{
      {"LOC", PathClass::kSelf},
      {"PIX", PathClass::kPix},
      {"PXB", PathClass::kPxb},
      {"PHB", PathClass::kPhb},
      {"NODE", PathClass::kNode},
      {"SYS", PathClass::kSys},
      {"0", PathClass::kSelf},
      {"1", PathClass::kPix},
      {"2", PathClass::kPxb},
      {"3", PathClass::kPhb},
      {"4", PathClass::kSys},
      {"5", PathClass::kSys},
  }};
  for (const auto& [name, level] : kNames) {
    if (value == name) {
      return level;
    }
  }
  return std::nullopt;
}

const char* gdr_level_name(PathClass level) {
  return level == PathClass::kSelf ? "LOC" : to_string(level);
}

PathClass pcie_path_class(const NodeSpec& node, DeviceRef a, DeviceRef b) {
  if (a == b) {
    return PathClass::kSelf;
  }
  const PcieParent from_a = parent_of(node, a);
  const PcieParent from_b = parent_of(node, b);
  // A switch above both: PIX where it is the parent of both (one bridge crossed), otherwise PXB.
  if (const std::optional<PcieParent> common = lowest_common_switch(node, from_a, from_b)) {
    return *common == from_a && *common == from_b ? PathClass::kPix : PathClass::kPxb;
  }
  if (host_bridge_above(node, from_a) == host_bridge_above(node, from_b)) {
    return PathClass::kPhb;
  }
  return numa_of(node, a) == numa_of(node, b) ? PathClass::kNode : PathClass::kSys;
}

int host_bridge_above(const NodeSpec& node, PcieParent parent) {
  for (std::size_t climbed = 0; parent.kind == PcieParent::Kind::kSwitch; ++climbed) {
    RAILSIM_ASSERT(climbed < node.switches.size(), "PCIe switches form a tree");
    parent = above(node, parent);
  }
  return parent.index;
}

std::optional<PcieParent> lowest_common_switch(const NodeSpec& node, PcieParent a, PcieParent b) {
  for (PcieParent x = a; x.kind == PcieParent::Kind::kSwitch; x = above(node, x)) {
    for (PcieParent y = b; y.kind == PcieParent::Kind::kSwitch; y = above(node, y)) {
      if (x == y) {
        return x;
      }
    }
  }
  return std::nullopt;
}

int numa_of(const NodeSpec& node, DeviceRef device) {
  const int bridge = host_bridge_above(node, parent_of(node, device));
  return node.host_bridges.at(static_cast<std::size_t>(bridge)).numa;
}

int nvlinks_between(const NodeSpec& node, int gpu_a, int gpu_b) {
  if (gpu_a == gpu_b) {
    return 0;
  }
  switch (node.nvlink.kind) {
    case NvlinkKind::kNone:
      return 0;
    case NvlinkKind::kSwitch:
      return node.nvlink.links_per_gpu;
    case NvlinkKind::kBridge:
      for (const auto& [x, y] : node.nvlink.bridged_pairs) {
        if ((x == gpu_a && y == gpu_b) || (x == gpu_b && y == gpu_a)) {
          return node.nvlink.links_per_gpu;
        }
      }
      return 0;
  }
  RAILSIM_UNREACHABLE("every NvlinkKind is handled");
}

PathClass path_class(const NodeSpec& node, DeviceRef a, DeviceRef b) {
  if (a.kind == DeviceRef::Kind::kGpu && b.kind == DeviceRef::Kind::kGpu && a != b &&
      nvlinks_between(node, a.index, b.index) > 0) {
    return PathClass::kNvlink;
  }
  return pcie_path_class(node, a, b);
}

std::string topo_label(const NodeSpec& node, DeviceRef a, DeviceRef b) {
  const PathClass path = path_class(node, a, b);
  if (path == PathClass::kNvlink) {
    return "NV" + std::to_string(nvlinks_between(node, a.index, b.index));
  }
  return to_string(path);
}

}  // namespace railsim::models
