// File: models/hardware/nvlink_domain.hpp
// A multi-node NVLink domain as one node: the compute trays of a rack whose GPUs share NVLink
// switch trays (GB200 / GB300 NVL72: 18 trays of 4 GPUs, 72 GPUs in one domain). NCCL with
// NCCL_MNNVL_ENABLE runs the domain as one node, rings and NVLS over all its GPUs and the network
// only between domains, so railsim builds it as one: each tray's sockets, NUMA nodes, PCIe tree,
// GPUs and NICs side by side (tray t's GPUs are the node's GPUs 4t..4t+3 on NVL72), its NICs
// named "t<tray>-<name>", and the tray's NVLink figures (each GPU's links to the switch trays)
// for the whole domain. Sockets of different trays share no link; a device of one tray is SYS
// from every device of another, as on two servers.
#pragma once

#include "models/hardware/node_spec.hpp"

#include <string>
#include <string_view>

namespace railsim::models {

// `trays` copies of `tray` as one node named `name`. Throws sim::InputError for fewer than two
// trays, or a tray that is a domain already or has no NVLink switch.
NodeSpec nvlink_domain(const NodeSpec& tray, int trays, std::string name, std::string description);

// The nodes `count` compute trays of `node` make: count / node.trays NVLink domains (count itself
// for a server). What `--nodes` and /system/nodes give for such a node: `--nodes 18` of
// gb200-nvl72 is one rack. Throws sim::InputError, naming the domain, unless node.trays divides
// `count`.
int domains_for_trays(const NodeSpec& node, int count);

// A device's name as its tray's system knows it: without the "t<tray>-" the domain put in front.
std::string_view tray_device_name(std::string_view name);

}  // namespace railsim::models
