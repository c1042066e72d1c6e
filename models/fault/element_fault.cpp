// File: models/fault/element_fault.cpp
#include "models/fault/element_fault.hpp"

#include <fmt/format.h>

#include <cstddef>

namespace railsim::models {

bool on_a_node(FaultKind kind) {
  switch (kind) {
    case FaultKind::kNicPort:
    case FaultKind::kNicPcie:
    case FaultKind::kNicDown:
    case FaultKind::kGdrOff:
    case FaultKind::kCablesSwapped:
    case FaultKind::kNicOtherSocket:
      return true;
    case FaultKind::kSwitchCable:
    case FaultKind::kFewerUplinks:
    case FaultKind::kStaticEcmp:
    case FaultKind::kEcmpDraw:
    case FaultKind::kTopOfRack:
      return false;
  }
  return false;
}

const Nic& faulted_nic(const NodeSpec& node, int compute_nic) {
  return node.nics.at(static_cast<std::size_t>(
      compute_nic_indices(node).at(static_cast<std::size_t>(compute_nic))));
}

std::string node_name(int node, const std::vector<std::string>& hosts) {
  return static_cast<std::size_t>(node) < hosts.size() ? hosts[static_cast<std::size_t>(node)]
                                                       : fmt::format("n{}", node);
}

std::string fault_name(const ElementFault& f,
                       const NodeSpec& node,
                       const std::vector<std::string>& hosts) {
  const std::string host = node_name(f.node, hosts);
  if (f.kind == FaultKind::kGdrOff) {
    return host + " GPUDirect RDMA off";
  }
  if (f.kind == FaultKind::kSwitchCable) {
    return fmt::format("cable {} at {:.0f}%", f.cable, 100.0 * f.scale);
  }
  if (f.kind == FaultKind::kFewerUplinks) {
    return fmt::format("leaf uplinks at {:.0f}% of the design's", 100.0 * f.scale);
  }
  if (f.kind == FaultKind::kStaticEcmp) {
    return "static ECMP instead of adaptive routing";
  }
  if (f.kind == FaultKind::kEcmpDraw) {
    return fmt::format("ECMP collisions (hash draw {})", f.draw);
  }
  if (f.kind == FaultKind::kTopOfRack) {
    return "rails cabled top-of-rack (every NIC of a node on one leaf)";
  }
  const std::string nic = fmt::format("{}.{}", host, faulted_nic(node, f.nic).name);
  if (f.kind == FaultKind::kNicDown) {
    return nic + " down";
  }
  if (f.kind == FaultKind::kCablesSwapped) {
    return fmt::format("{} and {} cables swapped", nic, faulted_nic(node, f.other_nic).name);
  }
  if (f.kind == FaultKind::kNicOtherSocket) {
    return nic + " on the other socket";
  }
  return fmt::format("{} {} at {:.0f}%", nic, f.kind == FaultKind::kNicPort ? "port" : "PCIe",
                     100.0 * f.scale);
}

std::string fault_next_step(const ElementFault& f) {
  switch (f.kind) {
    case FaultKind::kNicPort:
      return "the port's rate and error counters (ibstat, perfquery -x: symbol and link "
             "recovery errors), then reseat or replace the cable";
    case FaultKind::kNicPcie:
      return "the NIC's PCIe link (lspci -vv: LnkSta against LnkCap)";
    case FaultKind::kNicDown:
      return "the port's state (ibstat: State Active, Physical state LinkUp) and NCCL_DEBUG=INFO's "
             "list of NICs";
    case FaultKind::kCablesSwapped:
      return "which leaf each of the two ports is cabled to (ibnetdiscover, or the cable labels) "
             "against the design's rails";
    case FaultKind::kGdrOff:
      return "GPUDirect RDMA on the node (nvidia-peermem loaded; NCCL_DEBUG=INFO shows GDRDMA on "
             "its NICs)";
    case FaultKind::kNicOtherSocket:
      return "the NIC's slot: its NUMA node (/sys/class/infiniband/<device>/device/numa_node) and "
             "its row of nvidia-smi topo -m (SYS from the GPU it should serve) against the "
             "design";
    case FaultKind::kSwitchCable:
      return "both ends' port counters and rate (perfquery -x on the two switch ports: symbol "
             "and link recovery errors; ibnetdiscover or ibdiagnet for the link's width and "
             "speed), then reseat or replace the cable";
    case FaultKind::kFewerUplinks:
      return "the cables in service between each leaf and the spines (ibnetdiscover, or the "
             "switches' port states) against the design's uplinks";
    case FaultKind::kStaticEcmp:
      return "whether the switches route adaptively (the subnet manager's routing engine and "
             "adaptive-routing settings; ibdiagnet's routing report)";
    case FaultKind::kEcmpDraw:
      return "the uplinks' load while the job runs (the switches' port counters): flows hashed "
             "onto the same uplinks; more queue pairs per connection "
             "(NCCL_IB_QPS_PER_CONNECTION) or adaptive routing spread them";
    case FaultKind::kTopOfRack:
      return "which leaf each NIC of a node is cabled to (ibnetdiscover, or the cable labels): "
             "one leaf for all of a node's NICs, where the design has one leaf per rail";
  }
  return "";
}

}  // namespace railsim::models
