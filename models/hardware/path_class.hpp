// File: models/hardware/path_class.hpp
// The distance classes of `nvidia-smi topo -m`, derived from a NodeSpec's PCIe tree:
//   PIX   both devices directly below one PCIe switch (at most one bridge crossed)
//   PXB   a common PCIe switch further up (several bridges, no host bridge)
//   PHB   the same host bridge (root complex), no common switch
//   NODE  different host bridges of one NUMA node
//   SYS   different NUMA nodes (the SMP interconnect, or between NUMA nodes of one socket)
// GPU pairs in one NVLink domain show NV<links> instead. NCCL's GDR and P2P levels compare these.
#pragma once

#include "models/hardware/node_spec.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace railsim::models {

enum class PathClass { kSelf, kNvlink, kPix, kPxb, kPhb, kNode, kSys };

// "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS" (NV without its link count).
const char* to_string(PathClass path_class);

// A value of NCCL_NET_GDR_LEVEL: the farthest GPU-NIC distance at which NCCL uses GPUDirect RDMA.
// LOC (kSelf: never, no NIC is that near), PIX, PXB, PHB, NODE, SYS, or NCCL's legacy integers
// 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and 5 SYS (../shared/docs/fabric-facts.md §3); nullopt for
// anything else.
std::optional<PathClass> gdr_level_named(std::string_view value);

// What gdr_level_named takes, for messages.
inline constexpr std::string_view kGdrLevelValues = "LOC, PIX, PXB, PHB, NODE or SYS (or 0-5)";

// The name of a GDR level as NCCL_NET_GDR_LEVEL spells it: "LOC" for kSelf, else to_string.
const char* gdr_level_name(PathClass level);

// A device of a node: a GPU or a NIC by index.
struct DeviceRef {
  enum class Kind { kGpu, kNic };
  Kind kind = Kind::kGpu;
  int index = 0;

  constexpr bool operator==(const DeviceRef&) const = default;
};

// The PCIe distance between two devices (kSelf for a device and itself).
PathClass pcie_path_class(const NodeSpec& node, DeviceRef a, DeviceRef b);

// The parent of the PCIe switch `below` is: one step up a device's chain of switches, which is
// walked in place (`while (p.kind == kSwitch) p = above(node, p);`) rather than copied, since
// routes walk it for every hop of every connection.
inline PcieParent above(const NodeSpec& node, PcieParent below) {
  return node.switches.at(static_cast<std::size_t>(below.index)).parent;
}

// The host bridge at the top of the chain from `parent` (a device's parent).
int host_bridge_above(const NodeSpec& node, PcieParent parent);

// The lowest PCIe switch in both chains, from `a` and from `b` (two devices' parents), or nothing
// where they meet only at a host bridge or above: where a transfer between the two turns back.
std::optional<PcieParent> lowest_common_switch(const NodeSpec& node, PcieParent a, PcieParent b);

// NVLinks between two GPUs (0 if none); for an NVSwitch domain, every GPU's link count.
int nvlinks_between(const NodeSpec& node, int gpu_a, int gpu_b);

// The class nvidia-smi reports: NVLink first for GPU pairs that have it, else PCIe.
PathClass path_class(const NodeSpec& node, DeviceRef a, DeviceRef b);

// The cell of `nvidia-smi topo -m`: "X", "NV18", "PIX", ...
std::string topo_label(const NodeSpec& node, DeviceRef a, DeviceRef b);

// The NUMA node a device is attached to (index into NodeSpec::numa_nodes).
int numa_of(const NodeSpec& node, DeviceRef device);

}  // namespace railsim::models
