// File: tools/nodes_option.cpp
#include "tools/nodes_option.hpp"

#include "models/fabric/fabric_sizing.hpp"
#include "models/hardware/node_spec.hpp"
#include "models/hardware/nvlink_domain.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

namespace railsim::tools {

void apply_nodes_option(models::SystemSpec& spec, int trays, int minimum) {
  const int per_node = spec.node.trays;
  if (trays < minimum * per_node) {
    throw sim::InputError(fmt::format(
        "--nodes: expected at least {}{}, got {}", minimum * per_node,
        per_node > 1 ? fmt::format(" trays ({} NVLink domain{})", minimum, minimum == 1 ? "" : "s")
                     : "",
        trays));
  }
  int nodes = 0;
  try {
    nodes = models::domains_for_trays(spec.node, trays);
  } catch (const sim::InputError& e) {
    throw sim::InputError(fmt::format("--nodes {}: {}", trays, e.what()));
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
