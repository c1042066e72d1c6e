// File: models/system/node_links.hpp
// The links inside one node of a System: each PCIe element (switch, GPU, NIC) to its parent and
// back at its slot's effective rate, the host memory of each socket, the links between sockets,
// and NVLink. Their names are those pcie_link_names (system.hpp) gives. Internal to
// models/system; the NIC ports to the fabric are fabric_cabling.hpp's.
#pragma once

#include "models/hardware/node_spec.hpp"
#include "models/system/system_links.hpp"

namespace railsim::models {

// Adds node `n`'s links, built from `node`, to `links` and returns them. NVLink: with an
// NVSwitch, each GPU has one port each way of links_per_gpu x link_rate x efficiency; with
// bridges, each bridged pair one link each way at that rate.
NodeLinks build_node_links(SystemLinks& links, int n, const NodeSpec& node);

}  // namespace railsim::models
