// File: models/system/fabric_cabling.hpp
// How a System cables its fabric: the rail of each compute NIC of each node (aligned, shuffled
// by a seed, or an explicit table checked by models/fabric/cabling.hpp), the NIC ports to their
// leaves, and the cables between switches, as links and as edges of the switch graph
// (fabric_graph.hpp). Internal to models/system.
#pragma once

#include "models/system/system.hpp"
#include "models/system/system_links.hpp"

#include <vector>

namespace railsim::models {

// The rail of each compute NIC of each node, [node][compute NIC]: NIC i on rail i when aligned,
// a Fisher-Yates shuffle per node and plane seeded by the fabric's rail_seed when misaligned, the
// fabric's cabling table, or, top-of-rack, every NIC of node n on rail (n mod nodes_per_leaf) /
// (nodes_per_leaf / rails). A NIC stays in its own plane (NIC i in plane i / rails per plane),
// as a cable to another plane would leave NCCL's rings on that NIC index without a path. Throws
// sim::InputError for a table that leaves a NIC unconnected, puts two NICs of one node on one
// rail or a NIC on a rail of another plane, and for top-of-rack cabling over several planes or
// units that do not split into whole nodes a leaf.
std::vector<std::vector<int>> cable_rails(const SystemSpec& spec, int rails);

// Adds the fabric's links to `links`, which holds the nodes' and the rails: the NIC ports of the
// built nodes, then the cables between switches. Leaves (rail r, unit u) are graph vertices
// r x units + u, the spines of plane l and pod q follow ((l x pods + q) x spines + s), then the
// cores (plane l's l x cores on). Uplink p of a leaf goes to spine p % spines of its plane and
// pod; with three tiers, uplink p of the spine at position s of its pod (c uplinks) to core
// (s x c + p) % cores of its plane, in core groups when cores outnumber c.
// Every fabric link carries payload at its rate times the wire efficiency. Throws
// sim::InputError for a NIC of another transport than the fabric's, or oversubscription that
// leaves a switch no uplink.
void wire_fabric(const System& system, SystemLinks& links);

}  // namespace railsim::models
