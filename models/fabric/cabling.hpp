// File: models/fabric/cabling.hpp
// How a fabric's rails are cabled: the mappings' names, and checks. An explicit rail cabling table:
// one row per node, one rail per compute NIC, each rail at most once per node (a node has one port
// on each rail's leaf); problems carry the row and column, so a scenario reader can point at the
// offending value. Top-of-rack cabling: whole nodes on a leaf.
#pragma once

#include "models/fabric/fabric_spec.hpp"

#include <optional>
#include <string>
#include <vector>

namespace railsim::models {

// The mapping's key in scenario files and on the command line ("top-of-rack").
const char* rail_mapping_key(RailMapping rails);

struct CablingProblem {
  int node = -1;  // -1: the table as a whole
  int nic = -1;   // -1: the node's row as a whole
  std::string message;
};

std::optional<CablingProblem> find_cabling_problem(const std::vector<std::vector<int>>& cabling,
                                                   int nodes,
                                                   int rails);

// Why top-of-rack cabling cannot put whole nodes of `rails` compute NICs on each leaf of a unit
// of `nodes_per_leaf` over `planes` planes: nullopt when it can (one plane, nodes_per_leaf a
// multiple of the rails).
std::optional<std::string> top_of_rack_problem(int nodes_per_leaf, int planes, int rails);

}  // namespace railsim::models
