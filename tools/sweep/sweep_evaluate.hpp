// File: tools/sweep/sweep_evaluate.hpp
// The seam between the sweep engine and the models: an Evaluator turns one point's scenario
// document into rows of metrics (and, for training steps, the utilisation of the fabric's links).
// evaluate_point() is the default; it dispatches on what the
// document holds, one evaluator per kind of scenario, so another kind is one more function.
#pragma once

#include "models/scenario/json_reader.hpp"
#include "models/scenario/scenario_file.hpp"
#include "models/workload/work_limit.hpp"
#include "tools/sweep/sweep_results.hpp"

#include <functional>
#include <vector>

namespace railsim::tools::sweep {

// What one point measured: its rows (results.csv/results.json) and, for a training step, the
// utilisation of each fabric link that carried traffic (the report's heatmap only).
struct PointOutput {
  std::vector<PointRow> rows;
  LinkUtilisation link_utilisation;
};

// Called from several threads at once, one point each: it must build everything it simulates
// (Simulator, FlowNetwork, System) itself and keep no state between calls. `point` is the root
// of the point's document, whose errors name the sweep file and the point. An InputError fails
// the whole sweep with its message.
using Evaluator = std::function<PointOutput(const models::scenario::JsonValue& point)>;

// A document with "step" is a training-step scenario (evaluate_step); otherwise a scenario file
// whose collective "workload" is run (evaluate_collective).
PointOutput evaluate_point(const models::scenario::JsonValue& point);

// The same with each point held to `limit` (--max-memory).
PointOutput evaluate_point_within(const models::scenario::JsonValue& point,
                                  const models::WorkLimit& limit);

// The workload's collective at each of its sizes, one row per size: size_bytes, time_us,
// algbw_GBps, busbw_GBps (as `railsim collective --format json` names them), then the algo and
// proto NCCL's tuner chose. An InputError when the scenario has no workload, or when its system
// and collective would take more memory than `limit` allows.
std::vector<PointRow> evaluate_collective(const models::scenario::ScenarioFile& scenario,
                                          const models::WorkLimit& limit);

// Training-step scenarios (`/step`, docs/workloads.md): step_time_ms, comm_wait_fraction,
// healthy_step_time_ms (without /system/faults), slowdown; with a collective workload as well,
// one row per size of it, each with the step's four. The link utilisation covers the fabric's
// links (NIC ports, switch-to-switch cables) with bytes > 0, in link order, over the faulty run.
// A step estimated to need more memory than `limit` is refused before it is built.
PointOutput evaluate_step(const models::scenario::JsonValue& point,
                          const models::WorkLimit& limit = {});

}  // namespace railsim::tools::sweep
