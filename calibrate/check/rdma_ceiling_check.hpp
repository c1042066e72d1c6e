// File: calibrate/check/rdma_ceiling_check.hpp
// The NCCL layer's "RDMA fine, NCCL slow" check: each nccl-tests run against the ceiling its
// nodes' RDMA pairs imply, the model's prediction with every compute NIC of the run's nodes at
// the rate its ib_write_bw pairs measured. A NIC's rate is the best of its pairs as a fraction of
// the model's figure for them (capped at 1): a NIC is at least as fast as its best pair, so a
// slow cable lowers only its own NIC, not its healthy partners'. NICs without pairs, or within 2%
// of the model (measurement noise), keep the design's rate.
//
// A run more than kNcclTolerance below that ceiling is slow for a reason its RDMA pairs do not
// show: which NICs NCCL uses, the GPUs' affinity, rails, channels, PXN, or GPUDirect RDMA, which
// perftest in host memory never uses. A run slow against the design but not against the ceiling
// is explained by the RDMA layer's findings.
#pragma once

#include "calibrate/check/check_finding.hpp"
#include "calibrate/fit/model_parameters.hpp"
#include "calibrate/parse/cluster_evidence.hpp"

#include <vector>

namespace railsim::calibrate::check {

void check_rdma_ceiling(const parse::ClusterEvidence& evidence,
                        const fit::CalibratedModel& model,
                        std::vector<Finding>& out);

}  // namespace railsim::calibrate::check
