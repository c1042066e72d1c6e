// File: calibrate/check/cluster_check.hpp
// `railsim check`: a cluster's measurements against its design, layer by layer in the order
// operators accept a cluster (check_finding.hpp): each node's topology and the GPUs' NUMA
// affinity, each job's NICs against its GPUs, each node's link state, the RDMA pairs, the
// nccl-tests runs across node sets, then each nccl-tests log's results against the model.
// docs/acceptance.md walks through the report.
#pragma once

#include "calibrate/check/check_finding.hpp"
#include "calibrate/fit/model_parameters.hpp"
#include "calibrate/parse/cluster_evidence.hpp"

#include <string>

namespace railsim::calibrate::check {

// `design_name` is what the report calls the design (a preset or file name). Throws
// sim::InputError where the inputs contradict each other beyond what a finding can say.
CheckReport check_cluster(const parse::ClusterEvidence& evidence,
                          const fit::CalibratedModel& model,
                          const std::string& design_name);

}  // namespace railsim::calibrate::check
