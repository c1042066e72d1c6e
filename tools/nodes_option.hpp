// File: tools/nodes_option.hpp
// `--nodes N` on the commands that take a system (topo, collective, p2p): the system's node
// count replaced, its preset fabric grown for it by the switch's radix (models/fabric/
// fabric_sizing.hpp), and anything wrong said against the option, not against the file.
#pragma once

#include "models/system/system.hpp"

namespace railsim::tools {

// Sets spec.nodes to `nodes`, counted in compute trays where the node is an NVLink domain of
// several (gb200-nvl72: --nodes 18 is one rack). Throws sim::InputError starting "--nodes N: "
// for fewer than `minimum` nodes, a tray count the domain does not divide, or a count its
// fabric cannot be built for (beyond three tiers of its switch, a switch short of ports).
void apply_nodes_option(models::SystemSpec& spec, int nodes, int minimum);

}  // namespace railsim::tools
