// File: calibrate/check/link_state_check.hpp
// The link-state layer: each NIC of the design as `ibstat` and `ibdev2netdev` see it on a node.
// A port must be Active and LinkUp, trained at the design's rate (ibstat's Rate is the port's
// data rate in Gb/s, 400 for NDR 4x, as Nic::port_rate is), and of the design's link layer
// (InfiniBand, or Ethernet for RoCEv2); its network device must be up.
#pragma once

#include "calibrate/check/check_finding.hpp"
#include "calibrate/parse/cluster_evidence.hpp"
#include "models/hardware/node_spec.hpp"

#include <vector>

namespace railsim::calibrate::check {

// Appends a finding per NIC that fails, and one passing finding per tool when none does.
void check_link_state(const parse::NodeEvidence& node,
                      const models::NodeSpec& design,
                      std::vector<Finding>& out);

}  // namespace railsim::calibrate::check
