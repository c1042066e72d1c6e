// File: tools/step/step_report.hpp
// What `railsim step` prints: the step time, the healthy baseline and slowdown, what the GPUs
// waited, the critical path with the link that bound each collective on it, each fault's cost
// alone and, with --rank-links, the links ranked by what degrading each would cost. As a table,
// or as JSON (design.md §5: step_time_ms, healthy_step_time_ms, slowdown, comm_wait_fraction,
// critical_path).
#pragma once

#include "models/workload/step_workload.hpp"
#include "sim/time.hpp"
#include "tools/step/step_evaluation.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace railsim::tools {

struct FaultCost {
  std::string label;
  std::string where;
  std::vector<int> nodes;
  sim::Duration step_time{};  // with this fault alone
};

struct LinkCost {
  std::string link;
  sim::Duration step_time{};  // with this link degraded alone
};

// One of several jobs sharing the fabric, against the same job alone on it.
struct JobCost {
  std::string name;
  std::vector<int> nodes;
  sim::Duration step_time{};        // beside the other jobs
  sim::Duration alone_step_time{};  // alone on the same system, with the same faults
};

struct StepReport {
  std::string workload;
  std::string system;
  StepRun run;
  sim::Duration healthy_step_time{};
  std::vector<FaultCost> faults;
  double link_scale = 0.0;  // --rank-links' scale; 0 when not asked
  std::vector<LinkCost> link_costs;
  std::vector<JobCost> jobs;  // with /jobs: every job, the first being the one reported above
};

// Where a step's phases start: its first run's ready time.
sim::SimTime step_origin(const models::StepResult& result);

// "compute", a collective's operation ("all_reduce"), or "send".
std::string phase_kind(const models::StepWorkload& workload, const models::PhaseRun& run);

// The critical path as the reports show it: consecutive runs of one family ("backward.3" ..
// "backward.9") and kind merged into one entry, times from the step's start.
struct CriticalEntry {
  std::string name;  // "backward.3..9 (7)"
  std::string kind;  // "compute", "all_reduce", "send"
  double start_ms = 0.0;
  double end_ms = 0.0;
  std::string on;  // where it ran, and for a collective how and what bound it
};

std::vector<CriticalEntry> critical_entries(const models::StepWorkload& workload,
                                            const StepReport& report);

// The time each family of phases ("dispatch", "fwd_experts") held the critical path: the summed
// run time of its phases there, largest first (ties by name), with their kind and count.
struct FamilyCost {
  std::string family;
  std::string kind;
  int phases = 0;
  double ms = 0.0;
};

std::vector<FamilyCost> critical_families(const models::StepWorkload& workload,
                                          const models::StepResult& result);

void print_step_table(std::ostream& out,
                      const models::StepWorkload& workload,
                      const StepReport& report);
void print_step_json(std::ostream& out,
                     const models::StepWorkload& workload,
                     const StepReport& report);

}  // namespace railsim::tools
