// File: tools/sweep/sweep_evaluate.cpp
// The evaluators of scenario kinds, over the same runs the single-scenario commands make.
#include "tools/sweep/sweep_evaluate.hpp"

#include "models/collective/collective_run.hpp"
#include "sim/input_error.hpp"
#include "tools/collective/size_series.hpp"
#include "tools/step/step_evaluation.hpp"

#include <cstddef>
#include <limits>
#include <string>

namespace railsim::tools::sweep {
namespace {

// The fabric links of `run` that carried bytes, each as bytes / (capacity x step time).
LinkUtilisation fabric_utilisation(const StepRun& run) {
  const double seconds = sim::to_seconds(run.result.step_time);
  LinkUtilisation out;
  if (seconds <= 0.0) {
    return out;
  }
  for (std::size_t i = 0; i < run.link_names.size(); ++i) {
    if (!run.fabric_link[i] || run.result.link_bytes[i] <= 0.0) {
      continue;
    }
    // A link that a timed fault took down ends the step without capacity: its share is unknown,
    // not infinite.
    const double capacity = run.link_capacity[i];
    out.emplace_back(run.link_names[i], capacity > 0.0
                                            ? run.result.link_bytes[i] / (capacity * seconds)
                                            : std::numeric_limits<double>::quiet_NaN());
  }
  return out;
}

}  // namespace

PointOutput evaluate_point(const models::scenario::JsonValue& point) {
  return evaluate_point_within(point, models::WorkLimit{});
}

PointOutput evaluate_point_within(const models::scenario::JsonValue& point,
                                  const models::WorkLimit& limit) {
  if (point.is_object() && point.contains("step")) {
    return evaluate_step(point, limit);
  }
  return {evaluate_collective(models::scenario::read_scenario(point), limit), {}};
}

std::vector<PointRow> evaluate_collective(const models::scenario::ScenarioFile& scenario,
                                          const models::WorkLimit& limit) {
  if (!scenario.workload) {
    throw sim::InputError(scenario.system.file + R"(: no "workload" (or "step") to evaluate)");
  }
  check_series_memory(scenario.system, *scenario.workload, limit, scenario.system.file);
  const SizeSeries series =
      run_size_series(scenario.system, scenario.background, *scenario.workload, {});
  std::vector<PointRow> rows;
  rows.reserve(series.rows.size());
  for (const SeriesRow& row : series.rows) {
    const models::CollectiveResult& r = row.result;
    rows.push_back({{"size_bytes", row.size},
                    {"time_us", sim::to_us(r.time)},
                    {"algbw_GBps", r.algbw_GBps},
                    {"busbw_GBps", r.busbw_GBps},
                    {"algo", std::string(models::algorithm_label(r))},
                    {"proto", std::string(models::protocol_name(r.protocol))}});
  }
  return rows;
}

PointOutput evaluate_step(const models::scenario::JsonValue& point,
                          const models::WorkLimit& limit) {
  const models::scenario::ScenarioFile scenario = models::scenario::read_scenario(point);
  StepScenario step;
  step.system = scenario.system;
  step.background = scenario.background;
  step.workload = models::scenario::read_step(point.at("step"), scenario.system.system, limit);
  const StepRun run = run_step_scenario(step);
  const bool faulty = !step.system.faults.empty();
  const double time_ms = sim::to_ms(run.result.step_time);
  const double healthy_ms =
      faulty ? sim::to_ms(run_step_scenario(healthy(step)).result.step_time) : time_ms;
  const PointRow metrics = {{"step_time_ms", time_ms},
                            {"comm_wait_fraction", run.result.comm_wait_fraction()},
                            {"healthy_step_time_ms", healthy_ms},
                            {"slowdown", time_ms / healthy_ms}};
  PointOutput out;
  out.link_utilisation = fabric_utilisation(run);
  if (!scenario.workload) {
    out.rows = {metrics};
    return out;
  }
  // A point with a collective workload as well: its rows, each with the step's metrics.
  out.rows = evaluate_collective(scenario, limit);
  for (PointRow& row : out.rows) {
    row.insert(row.end(), metrics.begin(), metrics.end());
  }
  return out;
}

}  // namespace railsim::tools::sweep
