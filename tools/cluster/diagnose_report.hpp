// File: tools/cluster/diagnose_report.hpp
// The page `railsim diagnose --report DIR` writes (docs/acceptance.md): the ranked explanations
// as a table, one measured-vs-predicted chart per unit of the measurements (GB/s, us) with the
// design's and the first explanations' predictions against what was measured, so a good
// explanation lies on the diagonal, and the first explanation's rows beside the measured ones.
// A pure function of the view, so equal inputs give equal pages.
#pragma once

#include "tools/cluster/diagnosis_view.hpp"
#include "tools/report/report_page.hpp"

namespace railsim::tools {

// `top`: how many groups of explanations the table lists and the charts draw (at most 3 drawn).
[[nodiscard]] report::Report diagnose_report_page(const DiagnosisView& view, int top);

}  // namespace railsim::tools
