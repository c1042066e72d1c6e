// File: models/fabric/cabling.hpp
// Checks an explicit rail cabling table: one row per node, one rail per compute NIC, each rail
// at most once per node (a node has one port on each rail's leaf). Problems carry the row and
// column, so a scenario reader can point at the offending value.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace railsim::models {

struct CablingProblem {
  int node = -1;  // -1: the table as a whole
  int nic = -1;   // -1: the node's row as a whole
  std::string message;
};

std::optional<CablingProblem> find_cabling_problem(const std::vector<std::vector<int>>& cabling,
                                                   int nodes,
                                                   int rails);

}  // namespace railsim::models
