// File: calibrate/check/multi_node_check.hpp
// The multi-node layer: nccl-tests runs of one shape (the same operation, node count, GPUs per
// node and largest size), each run's figure its busbw at its largest size.
//
// Runs of one shape on the same nodes and GPUs are repeats of one job. Repeats should agree: one
// more than kOutlierFloor below their median is jitter, something shared that changes from run
// to run (other jobs' traffic, where ECMP put each run's flows, clocks), named once per job. Each
// job then enters its shape's population with its repeats' median, so a transient in one repeat
// is not blamed on the nodes.
//
// Four jobs or more of a shape on different sets of nodes, as a pairwise sweep makes them, form a
// population: it takes the robust outlier test of population_outliers.hpp with the jobs' nodes as
// ends, so a node all of whose jobs are slow (GPUDirect RDMA off, a NIC or PCIe fault) is named
// once, and a slow job whose nodes are fine elsewhere is named as a bad combination. The
// population's median is judged against the model in place of each run's own figure.
#pragma once

#include "calibrate/check/check_finding.hpp"
#include "calibrate/fit/model_parameters.hpp"
#include "calibrate/parse/cluster_evidence.hpp"

#include <set>
#include <vector>

namespace railsim::calibrate::check {

// Appends the repeats' and populations' findings and returns, for each log, the runs (by index)
// a population judged.
std::vector<std::set<std::size_t>> check_multi_node(const std::vector<parse::NcclEvidence>& logs,
                                                    const fit::CalibratedModel& model,
                                                    std::vector<Finding>& out);

}  // namespace railsim::calibrate::check
