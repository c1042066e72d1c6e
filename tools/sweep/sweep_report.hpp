// File: tools/sweep/sweep_report.hpp
// The page `railsim sweep --report DIR` writes (docs/sweeps.md, "Reports"): from a sweep's
// results, the figures its columns allow (busbw against message size, step time against fault
// severity, a metric against a numeric parameter, the utilisation of the fabric's links) and
// tables of every row. A pure function of SweepResults, so equal results give equal pages.
#pragma once

#include "tools/report/report_page.hpp"
#include "tools/sweep/link_heatmap.hpp"
#include "tools/sweep/sweep_charts.hpp"
#include "tools/sweep/sweep_results.hpp"

#include <cstddef>

namespace railsim::tools::sweep {

// The table of every row stops after this many rows (results.csv has them all).
constexpr std::size_t kMaxTableRows = 5000;

// The whole page, titled with the sweep's name. An InputError when a metric is named like a
// parameter (as results_csv).
[[nodiscard]] report::Report sweep_report(const SweepResults& results);

}  // namespace railsim::tools::sweep
