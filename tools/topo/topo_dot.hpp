// File: tools/topo/topo_dot.hpp
// `railsim topo --format dot`: one node and the fabric of a System as Graphviz text.
#pragma once

#include "models/system/fabric_summary.hpp"
#include "models/system/system.hpp"
#include "sim/flow_network.hpp"

#include <ostream>

namespace railsim::tools {

void print_dot(const models::System& system,
               const sim::FlowNetwork& network,
               const models::FabricSummary& summary,
               std::ostream& out);

}  // namespace railsim::tools
