// File: tools/nodes_option.cpp
#include "tools/nodes_option.hpp"

#include "models/fabric/fabric_sizing.hpp"
#include "models/hardware/node_spec.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

namespace railsim::tools {

void apply_nodes_option(models::SystemSpec& spec, int nodes, int minimum) {
  if (nodes < minimum) {
    throw sim::InputError(fmt::format("--nodes: expected at least {}, got {}", minimum, nodes));
  }
  spec.nodes = nodes;
  const auto rails = static_cast<int>(models::compute_nic_indices(spec.node).size());
  try {
    // The System grows the fabric again when it is built; here only to name the option.
    (void)models::built_fabric(spec.fabric, nodes, rails);
  } catch (const sim::InputError& e) {
    throw sim::InputError(fmt::format("--nodes {}: {}", nodes, e.what()));
  }
}

}  // namespace railsim::tools
