// File: calibrate/multi_node_check.hpp
// The multi-node layer: nccl-tests runs of one shape (the same operation, node count, GPUs per
// node and largest size) across different sets of nodes, as a pairwise sweep makes them. Four
// runs or more form a population: each run's figure is its busbw at its largest size, the
// population takes the robust outlier test of population_outliers.hpp with the runs' nodes as
// ends, so a node all of whose runs are slow (GPUDirect RDMA off, a NIC or PCIe fault) is named
// once, and a slow run whose nodes are fine elsewhere is named as a bad combination. The
// population's median is judged against the model in place of each run's own figure.
#pragma once

#include "calibrate/check_finding.hpp"
#include "calibrate/cluster_evidence.hpp"
#include "calibrate/model_parameters.hpp"

#include <set>
#include <vector>

namespace railsim::calibrate {

// Appends the populations' findings and returns, for each log, the runs (by index) they judged.
std::vector<std::set<std::size_t>> check_multi_node(const std::vector<NcclEvidence>& logs,
                                                    const CalibratedModel& model,
                                                    std::vector<Finding>& out);

}  // namespace railsim::calibrate
