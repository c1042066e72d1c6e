// File: models/hardware/path_class.cpp
// Distance classes from the PCIe tree: walk both devices up to their host bridges and compare.
#include "models/hardware/path_class.hpp"

#include "sim/assert.hpp"

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

namespace railsim::models {
namespace {

// The switches above a device, nearest first, and the host bridge at the top.
struct Ancestry {
  std::vector<int> switches;
  int host_bridge = 0;
};

PcieParent parent_of(const NodeSpec& node, DeviceRef device) {
  if (device.kind == DeviceRef::Kind::kGpu) {
    return node.gpus.at(static_cast<std::size_t>(device.index)).parent;
  }
  return node.nics.at(static_cast<std::size_t>(device.index)).parent;
}

Ancestry ancestry(const NodeSpec& node, DeviceRef device) {
  Ancestry result;
  PcieParent parent = parent_of(node, device);
  while (parent.kind == PcieParent::Kind::kSwitch) {
    RAILSIM_ASSERT(result.switches.size() <= node.switches.size(), "PCIe switches form a tree");
    result.switches.push_back(parent.index);
    parent = node.switches.at(static_cast<std::size_t>(parent.index)).parent;
  }
  result.host_bridge = parent.index;
  return result;
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
  const Ancestry up_a = ancestry(node, a);
  const Ancestry up_b = ancestry(node, b);
  for (std::size_t i = 0; i < up_a.switches.size(); ++i) {
    for (std::size_t j = 0; j < up_b.switches.size(); ++j) {
      if (up_a.switches[i] == up_b.switches[j]) {
        // Both directly below it: one bridge crossed. Otherwise several.
        return i == 0 && j == 0 ? PathClass::kPix : PathClass::kPxb;
      }
    }
  }
  if (up_a.host_bridge == up_b.host_bridge) {
    return PathClass::kPhb;
  }
  return numa_of(node, a) == numa_of(node, b) ? PathClass::kNode : PathClass::kSys;
}

int numa_of(const NodeSpec& node, DeviceRef device) {
  const int bridge = ancestry(node, device).host_bridge;
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
