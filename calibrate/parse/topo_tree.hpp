// File: calibrate/parse/topo_tree.hpp
// The server structure a dump's groups imply (topo_groups.hpp), built into an import's node: its
// NUMA nodes and sockets, the PCIe tree with the GPUs and NICs below it, and the NVLink domain.
// The choices the dump leaves open go to the import's notes and assumptions.
#pragma once

#include "calibrate/parse/topo_cells.hpp"
#include "calibrate/parse/topo_groups.hpp"
#include "calibrate/parse/topo_import.hpp"

namespace railsim::calibrate::parse {

// Throws ParseError at a GPU pair whose NVLink count differs from the others' (the model holds
// one count for every pair).
void build_node_tree(const TopoCells& cells, const TopoGroups& groups, TopoImport& import);

}  // namespace railsim::calibrate::parse
