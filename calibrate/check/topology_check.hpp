// File: calibrate/check/topology_check.hpp
// The first layer of acceptance: a node's `nvidia-smi topo -m` against the design's matrix
// (models/hardware/topo_matrix.hpp). Devices are matched by name (GPUk, and each NIC by its
// verbs device through the NIC legend), never by column position, so a missing or extra NIC
// cannot shift the others. Differing cells are blamed on as few devices as explain them: a NIC
// in the wrong slot changes its whole column, and is named once rather than at every GPU.
#pragma once

#include "calibrate/check/check_finding.hpp"
#include "calibrate/parse/cluster_evidence.hpp"
#include "models/hardware/node_spec.hpp"

#include <vector>

namespace railsim::calibrate::check {

// Appends the topology findings (devices present, distances) and the affinity findings (each
// GPU's NUMA node and CPU list) of `node`'s dump, or one skipped finding when it has none.
void check_topology(const parse::NodeEvidence& node,
                    const models::NodeSpec& design,
                    std::vector<Finding>& out);

}  // namespace railsim::calibrate::check
