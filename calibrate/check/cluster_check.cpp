// File: calibrate/check/cluster_check.cpp
#include "calibrate/check/cluster_check.hpp"

#include "calibrate/check/link_state_check.hpp"
#include "calibrate/check/multi_node_check.hpp"
#include "calibrate/check/nccl_run_check.hpp"
#include "calibrate/check/nccl_setup_check.hpp"
#include "calibrate/check/pcie_link_check.hpp"
#include "calibrate/check/rdma_ceiling_check.hpp"
#include "calibrate/check/rdma_pair_check.hpp"
#include "calibrate/check/topology_check.hpp"

#include <algorithm>
#include <set>

namespace railsim::calibrate::check {

using fit::CalibratedModel;
using parse::ClusterEvidence;
using parse::NcclEvidence;
using parse::NodeEvidence;

CheckReport check_cluster(const ClusterEvidence& evidence,
                          const CalibratedModel& model,
                          const std::string& design_name) {
  CheckReport report;
  report.source = evidence.source;
  report.design = design_name;
  std::vector<Finding>& out = report.findings;
  const models::NodeSpec& node = model.system.node;
  for (const NodeEvidence& n : evidence.nodes) {
    check_topology(n, node, out);
    check_pcie_links(n, node, out);
  }
  for (const NcclEvidence& run : evidence.nccl) {
    check_nccl_affinity(run, model.system, out);
    check_nccl_setup(run, model.system, out);
  }
  for (const NodeEvidence& n : evidence.nodes) {
    check_link_state(n, node, out);
  }
  check_rdma_pairs(evidence.pairs, model, out);
  const std::vector<std::set<std::size_t>> together = check_multi_node(evidence.nccl, model, out);
  for (std::size_t l = 0; l < evidence.nccl.size(); ++l) {
    check_nccl_results(evidence.nccl[l], model, together[l], out);
  }
  check_rdma_ceiling(evidence, model, out);
  // Each layer's checks were appended in input order; the report reads layer by layer.
  std::stable_sort(out.begin(), out.end(),
                   [](const Finding& a, const Finding& b) { return a.layer < b.layer; });
  return report;
}

}  // namespace railsim::calibrate::check
