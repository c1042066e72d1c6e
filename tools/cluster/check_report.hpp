// File: tools/cluster/check_report.hpp
// The page `railsim check --report DIR` writes (docs/acceptance.md): a pass/fail table per layer,
// a heatmap of each perftest population's node x node matrix (the worst figure of each pair over
// its NICs), per-node bars of each node's worst figure beside the population's median, and the
// findings of each layer as a table. A pure function of the report and the evidence, so equal
// inputs give equal pages.
#pragma once

#include "calibrate/check/check_finding.hpp"
#include "calibrate/parse/cluster_evidence.hpp"
#include "tools/report/report_page.hpp"

namespace railsim::tools {

[[nodiscard]] report::Report check_report_page(const calibrate::check::CheckReport& report,
                                               const calibrate::parse::ClusterEvidence& evidence);

}  // namespace railsim::tools
