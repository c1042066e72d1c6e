// File: tools/step/step_evaluation.hpp
// A training step on a scenario's system, as `railsim step`, `railsim sweep` and `--rank-links`
// run it: the system built with its faults, the background started, the timed faults scheduled,
// the step run; the same again without any fault for the healthy baseline; and each fault alone,
// to say which of them cost what.
#pragma once

#include "models/scenario/scenario_file.hpp"
#include "models/scenario/step_file.hpp"
#include "models/workload/step_run.hpp"

#include <optional>
#include <string>
#include <vector>

namespace railsim::tools {

struct StepScenario {
  models::scenario::SystemFile system;  // its own faults included
  std::vector<models::BackgroundFlow> background;
  models::StepWorkload workload;
  std::vector<models::StepWorkload> co_jobs;  // other jobs on the same fabric at the same time
  models::scenario::StepFaults faults;        // --faults
  models::StepOptions options;                // a profile's calibration
};

// One run and what its network knew, kept after the network is gone.
struct StepRun {
  models::StepResult result;
  std::vector<models::StepResult> co_results;  // the co_jobs', in order
  std::vector<std::string> link_names;         // by sim::LinkId index
  std::vector<double> link_capacity;           // bytes/s at the end of the step
  std::vector<bool> fabric_link;               // a NIC port or a cable between switches
};

// Runs the step on the scenario as given, its co_jobs at the same time.
StepRun run_step_scenario(const StepScenario& scenario);

// The scenario without any fault: the system file's, the fault file's, stragglers and the fault
// file's GPUDirect RDMA nodes (the system's own gdr_off_nodes are its design and stay).
StepScenario healthy(const StepScenario& scenario);

// One injected fault: a link (both PCIe directions count as one), a straggler or a node
// without GPUDirect RDMA.
struct FaultItem {
  std::string
      label;  // "n3.mlx5_0>leaf0 x0.5", "n3.gpu2 compute x1.3", "GPUDirect RDMA off on node 3"
  std::string where;       // file: JSON pointer
  std::vector<int> nodes;  // system nodes it sits on; empty for a switch-to-switch cable
  StepScenario alone;      // the healthy scenario with only this fault
};

std::vector<FaultItem> fault_items(const StepScenario& scenario);

// Each job of the scenario (the workload, then the co_jobs) on the same system alone.
std::vector<StepScenario> jobs_alone(const StepScenario& scenario);

}  // namespace railsim::tools
