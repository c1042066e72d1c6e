// File: calibrate/diagnose/fault_space.cpp
#include "calibrate/diagnose/fault_space.hpp"

#include "models/fabric/cabling.hpp"
#include "models/fault/fault_injection.hpp"

#include <algorithm>

namespace railsim::calibrate::diagnose {

using models::ElementFault;
using models::FaultKind;

std::vector<ElementFault> fault_space(const models::SystemSpec& system,
                                      const std::vector<std::string>& cables,
                                      const std::vector<double>& scales) {
  const int nics = static_cast<int>(models::compute_nic_indices(system.node).size());
  const models::RailMapping rails = system.fabric.rails;
  // A node's cables all reach one leaf when misaligned at random or top-of-rack: nothing to swap.
  const bool swappable =
      rails == models::RailMapping::kAligned || rails == models::RailMapping::kExplicit;
  std::vector<ElementFault> space;
  for (int node = 0; node < system.nodes; ++node) {
    for (int nic = 0; nic < nics; ++nic) {
      for (const FaultKind kind : {FaultKind::kNicPort, FaultKind::kNicPcie}) {
        for (const double scale : scales) {
          space.push_back({kind, node, nic, scale});
        }
      }
      space.push_back({FaultKind::kNicDown, node, nic, 1.0});
      if (models::other_socket_slot(system.node, nic)) {
        space.push_back({FaultKind::kNicOtherSocket, node, nic, 1.0});
      }
      for (int other = nic + 1; other < nics && swappable; ++other) {
        space.push_back({FaultKind::kCablesSwapped, node, nic, 1.0, other});
      }
    }
    space.push_back({FaultKind::kGdrOff, node, 0, 1.0});
  }
  for (const std::string& cable : cables) {
    for (const double scale : scales) {
      space.push_back({FaultKind::kSwitchCable, 0, 0, scale, 0, cable});
    }
  }
  if (!cables.empty()) {
    // A leaf left without an uplink is no candidate: explain() finds the system impossible.
    for (const double kept : scales) {
      space.push_back({FaultKind::kFewerUplinks, 0, 0, kept});
    }
    if (system.fabric.routing == models::Routing::kAdaptive) {
      space.push_back({FaultKind::kStaticEcmp});
    }
    for (int draw = 1;
         draw <= models::kEcmpDraws && system.fabric.routing == models::Routing::kEcmp; ++draw) {
      ElementFault f{FaultKind::kEcmpDraw};
      f.draw = draw;
      space.push_back(f);
    }
  }
  // Rails cabled by server: offered where it would split the cluster's nodes over leaves.
  const int nodes_per_rack = system.fabric.nodes_per_leaf / std::max(1, nics);
  if (rails == models::RailMapping::kAligned && system.nodes > nodes_per_rack &&
      !models::top_of_rack_problem(system.fabric.nodes_per_leaf, system.fabric.planes, nics)) {
    space.push_back({FaultKind::kTopOfRack});
  }
  return space;
}

bool same_element(const ElementFault& a, const ElementFault& b) {
  return a.kind == b.kind && a.node == b.node && a.cable == b.cable && a.draw == b.draw &&
         (a.kind == FaultKind::kGdrOff || (a.nic == b.nic && a.other_nic == b.other_nic));
}

}  // namespace railsim::calibrate::diagnose
