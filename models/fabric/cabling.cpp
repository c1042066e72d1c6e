// File: models/fabric/cabling.cpp
#include "models/fabric/cabling.hpp"

#include "sim/assert.hpp"

#include <fmt/format.h>

namespace railsim::models {

const char* rail_mapping_key(RailMapping rails) {
  switch (rails) {
    case RailMapping::kAligned:
      return "aligned";
    case RailMapping::kMisaligned:
      return "misaligned";
    case RailMapping::kExplicit:
      return "explicit";
    case RailMapping::kTopOfRack:
      return "top-of-rack";
  }
  RAILSIM_UNREACHABLE("a RailMapping without a name");
}

std::optional<CablingProblem> find_cabling_problem(const std::vector<std::vector<int>>& cabling,
                                                   int nodes,
                                                   int rails) {
  if (cabling.size() != static_cast<std::size_t>(nodes)) {
    return CablingProblem{
        -1, -1, fmt::format("expected one row per node ({}), got {}", nodes, cabling.size())};
  }
  for (int n = 0; n < nodes; ++n) {
    const std::vector<int>& row = cabling[static_cast<std::size_t>(n)];
    if (row.size() != static_cast<std::size_t>(rails)) {
      return CablingProblem{
          n, -1,
          fmt::format("expected a rail for each of the {} compute NICs, got {} (a NIC left "
                      "unconnected, or one too many)",
                      rails, row.size())};
    }
    std::vector<int> owner(static_cast<std::size_t>(rails), -1);
    for (int i = 0; i < rails; ++i) {
      const int rail = row[static_cast<std::size_t>(i)];
      if (rail < 0 || rail >= rails) {
        return CablingProblem{n, i,
                              fmt::format("expected a rail from 0 to {}, got {}", rails - 1, rail)};
      }
      int& first = owner[static_cast<std::size_t>(rail)];
      if (first >= 0) {
        return CablingProblem{n, i,
                              fmt::format("rail {} already holds NIC {} of this node: two NICs on "
                                          "one leaf port",
                                          rail, first)};
      }
      first = i;
    }
  }
  return std::nullopt;
}

std::optional<std::string> top_of_rack_problem(int nodes_per_leaf, int planes, int rails) {
  if (planes != 1) {
    return fmt::format(
        "top-of-rack cabling puts all of a node's NICs on one leaf, so one plane, not {}", planes);
  }
  if (nodes_per_leaf % rails != 0) {
    return fmt::format(
        "top-of-rack cabling puts whole nodes on a leaf: nodes_per_leaf ({}) must be a multiple "
        "of a node's {} compute NICs",
        nodes_per_leaf, rails);
  }
  return std::nullopt;
}

}  // namespace railsim::models
