// File: tools/step/step_page.cpp
#include "tools/step/step_page.hpp"

#include "tools/report/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

// The job ranks each run was on: its rank for compute, its group's members otherwise.
std::vector<std::vector<int>> ranks_of_runs(const models::StepWorkload& workload,
                                            const models::StepResult& result) {
  const std::vector<int> node_index = models::job_node_index(workload);
  std::vector<std::vector<int>> ranks;
  ranks.reserve(result.runs.size());
  for (const models::PhaseRun& run : result.runs) {
    const int comm = models::communicator_of(workload.phases[static_cast<std::size_t>(run.phase)]);
    if (comm < 0) {
      ranks.push_back({run.instance});
    } else {
      const models::StepCommunicator& groups =
          workload.communicators[static_cast<std::size_t>(comm)];
      ranks.push_back(models::group_job_ranks(
          workload, node_index, groups.groups[static_cast<std::size_t>(run.instance)]));
    }
  }
  return ranks;
}

// The ranks the timeline shows, in order: those the critical path ran on, then others spread
// evenly, kTimelineRanks in all (or every rank of a smaller job).
std::vector<int> shown_ranks(int ranks,
                             const models::StepResult& result,
                             const std::vector<std::vector<int>>& ranks_of) {
  std::set<int> shown;
  for (const int r : result.critical_path) {
    const std::vector<int>& on = ranks_of[static_cast<std::size_t>(r)];
    if (!on.empty() && shown.size() < kTimelineRanks) {
      shown.insert(on.front());
    }
  }
  const auto wanted = std::min<std::size_t>(kTimelineRanks, static_cast<std::size_t>(ranks));
  for (std::size_t k = 0; shown.size() < wanted && k < wanted; ++k) {
    shown.insert(static_cast<int>(k * static_cast<std::size_t>(ranks) / wanted));
  }
  for (int r = 0; shown.size() < wanted && r < ranks; ++r) {
    shown.insert(r);
  }
  return {shown.begin(), shown.end()};
}

report::Timeline timeline(const models::StepWorkload& workload, const StepReport& report) {
  const models::StepResult& result = report.run.result;
  const std::vector<std::vector<int>> ranks_of = ranks_of_runs(workload, result);
  const std::vector<int> shown = shown_ranks(workload.ranks(), result, ranks_of);
  std::map<int, std::size_t> row_of;
  report::Timeline t;
  t.title = fmt::format("{}: {} of {} ranks", report.workload, shown.size(), workload.ranks());
  t.axis_label = "time";
  t.axis_unit = "ms";
  for (const int r : shown) {
    row_of[r] = t.rows.size();
    t.rows.push_back(fmt::format("rank {}", r));
  }
  std::map<std::string, std::size_t> category_index;
  const std::set<int> critical(result.critical_path.begin(), result.critical_path.end());
  const sim::SimTime origin = step_origin(result);
  for (std::size_t i = 0; i < result.runs.size(); ++i) {
    const models::PhaseRun& run = result.runs[i];
    const std::string category = phase_kind(workload, run);
    const auto [at, added] = category_index.emplace(category, t.categories.size());
    if (added) {
      t.categories.push_back(category);
    }
    const std::string& name = workload.phases[static_cast<std::size_t>(run.phase)].name;
    for (const int rank : ranks_of[i]) {
      const auto row = row_of.find(rank);
      if (row == row_of.end()) {
        continue;
      }
      t.bars.push_back({row->second, sim::to_ms(run.start - origin), sim::to_ms(run.end - origin),
                        at->second, critical.count(static_cast<int>(i)) > 0,
                        fmt::format("{} ({}): {:.3f} to {:.3f} ms", name, category,
                                    sim::to_ms(run.start - origin), sim::to_ms(run.end - origin))});
    }
  }
  return t;
}

report::Table critical_table(const models::StepWorkload& workload, const StepReport& report) {
  report::Table table{"The critical path: each entry waited for the one before it",
                      {"phase", "kind", "start (ms)", "end (ms)", "on"},
                      {}};
  for (const CriticalEntry& e : critical_entries(workload, report)) {
    table.rows.push_back(
        {e.name, e.kind, fmt::format("{:.3f}", e.start_ms), fmt::format("{:.3f}", e.end_ms), e.on});
  }
  return table;
}

report::Table faults_table(const StepReport& report) {
  report::Table table{"Each fault alone against the healthy step",
                      {"fault", "nodes", "step time (ms)", "slowdown", "written at"},
                      {}};
  for (const FaultCost& f : report.faults) {
    const double healthy = sim::to_ms(report.healthy_step_time);
    table.rows.push_back(
        {f.label,
         f.nodes.empty() ? std::string("fabric") : fmt::format("{}", fmt::join(f.nodes, ",")),
         fmt::format("{:.3f}", sim::to_ms(f.step_time)),
         healthy > 0.0 ? fmt::format("{:.4f}x", sim::to_ms(f.step_time) / healthy) : "n/a",
         f.where});
  }
  return table;
}

}  // namespace

report::Report step_report_page(const models::StepWorkload& workload, const StepReport& report) {
  const models::StepResult& result = report.run.result;
  report::Report page(fmt::format("railsim step: {} on {}", report.workload, report.system));
  page.add_paragraph(fmt::format(
      "{} ranks on {} nodes. Step time {:.3f} ms; healthy {:.3f} ms; GPUs not computing {:.1f}% "
      "of the step (rank average).",
      workload.ranks(), workload.nodes.size(), sim::to_ms(result.step_time),
      sim::to_ms(report.healthy_step_time), 100.0 * result.comm_wait_fraction()));
  page.add_figure("step timeline", report::svg_timeline(timeline(workload, report)),
                  "What each shown rank did when: a bar per phase it ran (a collective on every "
                  "rank of its group), outlined where the phase is on the critical path; the "
                  "gaps are waits.");
  page.add_table(critical_table(workload, report));
  if (!report.faults.empty()) {
    page.add_table(faults_table(report));
  }
  return page;
}

}  // namespace railsim::tools
