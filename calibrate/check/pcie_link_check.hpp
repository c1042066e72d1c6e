// File: calibrate/check/pcie_link_check.hpp
// PCIe width and speed, in the topology layer: each GPU's and NIC's link as `lspci -vv` saw it
// on a node (LnkSta, what it trained at) against the design's link for it (a DGX H100's are
// Gen5 x16: 32 GT/s, x16). A link trained slower or narrower carries less than designed. GPUs
// are the NVIDIA display and 3D controllers in bus order, which is nvidia-smi's order; NICs are
// the functions ibdev2netdev -v names by PCI address; a network function it does not name is
// judged against its own LnkCap, by address.
#pragma once

#include "calibrate/check/check_finding.hpp"
#include "calibrate/parse/cluster_evidence.hpp"
#include "models/hardware/node_spec.hpp"

#include <vector>

namespace railsim::calibrate::check {

// Appends a finding per link that fails, one passing finding when none does, and a skipped one
// when the node has no lspci (or lspci read no link: it ran without root).
void check_pcie_links(const parse::NodeEvidence& node,
                      const models::NodeSpec& design,
                      std::vector<Finding>& out);

}  // namespace railsim::calibrate::check
