// File: calibrate/diagnose/fault_space.hpp
// The candidate faults railsim diagnose tries (fault_diagnosis.hpp), of the kinds
// models/fault/element_fault.hpp names, on the elements of the design the measurements run on.
#pragma once

#include "models/fault/element_fault.hpp"
#include "models/system/system.hpp"

#include <string>
#include <vector>

namespace railsim::calibrate::diagnose {

// On every node, each compute NIC's port and PCIe link at each grid scale, the NIC down, in a
// slot of the other socket (on a server of two), its cable swapped with each other NIC's (where
// the rails are aligned or explicit), and the node's GPUDirect RDMA off; each switch cable some
// measurement crosses, at each grid scale; where some traffic crosses a spine, leaves with a
// share of their uplinks at each grid scale, static ECMP on a design that routes adaptively, and
// kEcmpDraws other draws of a static-ECMP design's hash; and on a rail-aligned design whose nodes
// top-of-rack cabling would split over leaves, that cabling. `cables`: the switch cables some
// measurement crosses, sorted; `scales`: the grid of rate scales. An element's scales are listed
// one after another.
std::vector<models::ElementFault> fault_space(const models::SystemSpec& system,
                                              const std::vector<std::string>& cables,
                                              const std::vector<double>& scales);

// Whether two candidates are faults of one element (at different scales, say).
bool same_element(const models::ElementFault& a, const models::ElementFault& b);

}  // namespace railsim::calibrate::diagnose
