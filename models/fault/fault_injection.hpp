// File: models/fault/fault_injection.hpp
// Element faults (element_fault.hpp) put into a design, so that the model predicts what the
// faulty cluster measures: GPUDirect RDMA, the cabling, a node's server or the fabric changed in
// the spec, and the port, PCIe, cable and down faults applied to the links of each System built
// from it. Also each fault as the entries of a faults array, for a what-if run of it.
#pragma once

#include "models/fault/element_fault.hpp"
#include "models/hardware/node_spec.hpp"
#include "models/system/rdma_bench.hpp"
#include "models/system/system.hpp"

#include <optional>
#include <string>
#include <vector>

namespace railsim::models {

struct FaultedSystem {
  SystemSpec system;  // the design's spec with the faults that change it
  // Applies the link faults to a System built from `system`: those on switch cables always,
  // those of a node where the node is built (SystemSpec::built_nodes). Empty without any.
  SystemPreparation prepare;
};

// Throws nothing itself; `prepare` throws sim::InputError where a fault names no link of the
// system it is given or takes down a link that cannot go down.
FaultedSystem with_faults(const SystemSpec& design, const std::vector<ElementFault>& faults);

// Where a kNicOtherSocket fault puts compute NIC `compute_nic`: a root port of the first host
// bridge of another socket than its own; nothing on a server of one socket, which has no such
// fault.
std::optional<PcieParent> other_socket_slot(const NodeSpec& node, int compute_nic);

// The fault as entries of a faults array (docs/scenarios.md, `railsim step --faults`), in JSON
// text, so that a what-if run can reproduce it: link faults for a port, PCIe or cable, a
// {"gdr_off_node": N} entry for GPUDirect RDMA, a {"pcie": "nN.NIC", "parent": "hbB"} entry for
// a NIC on the other socket; none for swapped cables, fewer uplinks, static ECMP or another
// hash draw, which are changes of the system file's /system/fabric (cabling, oversubscription,
// routing, ecmp_seed) instead.
std::vector<std::string> fault_entries(const ElementFault& fault, const SystemSpec& system);

}  // namespace railsim::models
