// File: tools/step/step_page.hpp
// `railsim step --report DIR`: the step as a page (tools/report): its times, every shown rank's
// phases on a timeline with the critical path outlined (the gaps are waits), the critical path
// and each fault's cost as tables.
#pragma once

#include "models/workload/step_workload.hpp"
#include "tools/report/report_page.hpp"
#include "tools/step/step_report.hpp"

#include <cstddef>

namespace railsim::tools {

// A timeline of thousands of ranks is a grey wall: it shows at most this many, every rank the
// critical path runs on and, to fill, ranks spread evenly over the job.
inline constexpr std::size_t kTimelineRanks = 32;

report::Report step_report_page(const models::StepWorkload& workload, const StepReport& report);

}  // namespace railsim::tools
