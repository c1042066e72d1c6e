// File: models/scenario/node_writer.hpp
// The inverse of read_node_spec: a NodeSpec written as the inline `/system/node` object of a
// scenario file (docs/scenarios.md, "Inline nodes"), every field spelled out, so that
// read_node_spec(node_json(spec)) gives back the same node.
#pragma once

#include "models/hardware/node_spec.hpp"

#include <nlohmann/json_fwd.hpp>

namespace railsim::models::scenario {

// Rates are written in GB/s (NIC ports in Gbps) and latencies in ps, in the shortest decimal that
// reads back to the same double. A NIC's transport is not written: the reader takes it from
// /system/fabric/transport. The result is what the reader checks, not checked here: a node
// without a compute NIC is written, and rejected when read.
nlohmann::ordered_json node_json(const NodeSpec& node);

}  // namespace railsim::models::scenario
