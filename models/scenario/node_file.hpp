// File: models/scenario/node_file.hpp
// The `/system/node` value of a scenario file (docs/scenarios.md, "Inline nodes"): a preset name,
// a server written out part by part (sockets, NUMA nodes, host bridges, PCIe switches, GPUs,
// NICs, NVLink), or a preset with some of those sections replaced. Every error carries the JSON
// pointer of the value at fault, dangling references included.
#pragma once

#include "models/hardware/node_spec.hpp"
#include "models/scenario/json_reader.hpp"

namespace railsim::models::scenario {

// Parts refer to each other by the numbers railsim and nvidia-smi print: a PCIe parent by name
// ("hb0" is host_bridges[0], "sw2" is switches[2], as in link names), a socket and a GPU by
// position, a NUMA node by its id. Throws ScenarioError for anything a System could not be
// built from: a dangling reference, a switch that is its own ancestor, a node without a compute
// NIC, ...
NodeSpec read_node_spec(const JsonValue& value);

// A PCIe parent of `node` by name ("hb0", "sw2"); ScenarioError for another text or a parent the
// node lacks.
PcieParent read_pcie_parent(const JsonValue& value, const NodeSpec& node);

}  // namespace railsim::models::scenario
