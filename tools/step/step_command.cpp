// File: tools/step/step_command.cpp
// `railsim step WORKLOAD.json [--system PRESET|FILE] [--faults FAULTS.json] [--format table|json]
// [--rank-links SCALE]`: one training step's time, what the GPUs waited, the critical path, and
// with faults the slowdown against the healthy run and what each fault cost alone.
#include "models/scenario/json_reader.hpp"
#include "models/scenario/step_file.hpp"
#include "sim/input_error.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/cli_support/output_folder.hpp"
#include "tools/cli_support/output_format.hpp"
#include "tools/command.hpp"
#include "tools/max_memory_option.hpp"
#include "tools/parallel_runs.hpp"
#include "tools/profile_option.hpp"
#include "tools/progress_bar.hpp"
#include "tools/step/step_evaluation.hpp"
#include "tools/step/step_page.hpp"
#include "tools/step/step_report.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;
namespace sc = models::scenario;

constexpr std::array<Choice<OutputFormat>, 2> kFormats = {
    {{"table", OutputFormat::kText}, {"json", OutputFormat::kJson}}};

StepScenario load_step_scenario(const std::string& path,
                                const std::string& system_argument,
                                const std::string& faults_path,
                                const std::string& profile_path,
                                const models::WorkLimit& limit) {
  const sc::JsonDocument document = sc::load_json_file(path);
  const sc::JsonValue root = document.root();
  StepScenario scenario;
  if (!system_argument.empty()) {
    root.expect_keys({"name", "description", "system", "workload", "step", "jobs", "background"});
    const sc::ScenarioFile from = sc::scenario_from_argument(system_argument);
    scenario.system = from.system;
    scenario.background = from.background;
  } else if (root.contains("system")) {
    const sc::ScenarioFile from = sc::load_scenario_file(path);
    scenario.system = from.system;
    scenario.background = from.background;
  } else {
    throw sim::InputError(
        fmt::format("{}: no /system: give one in the file or with --system PRESET|FILE", path));
  }
  if (const std::optional<LoadedProfile> profile = load_profile(profile_path)) {
    apply_profile(*profile, scenario.system.system, scenario.options.calibration);
  }
  if (root.contains("step") == root.contains("jobs")) {
    throw sim::InputError(fmt::format(
        R"({}: expected one of "step" (a training step) or "jobs" (several at once))", path));
  }
  if (const auto jobs = root.find("jobs")) {
    std::vector<models::StepWorkload> all = sc::read_jobs(*jobs, scenario.system.system, limit);
    scenario.workload = std::move(all.front());
    scenario.co_jobs.assign(std::make_move_iterator(all.begin() + 1),
                            std::make_move_iterator(all.end()));
  } else {
    scenario.workload = sc::read_step(root.at("step"), scenario.system.system, limit);
  }
  if (!faults_path.empty()) {
    scenario.faults = sc::load_step_faults(faults_path, scenario.system.system);
  }
  return scenario;
}

// The phase instances a run of `scenario` ends, every job's.
std::size_t instance_count(const StepScenario& scenario) {
  std::size_t count = models::phase_instance_count(scenario.workload);
  for (const models::StepWorkload& job : scenario.co_jobs) {
    count += models::phase_instance_count(job);
  }
  return count;
}

// Runs `scenario`, advancing `progress` as each phase instance ends, from any thread.
StepRun run_counted(StepScenario scenario, ProgressBar& progress) {
  scenario.options.instance_finished = [&progress] { progress.advance(); };
  return run_step_scenario(scenario);
}

// Each fabric link that carried the healthy step's traffic, degraded to `scale` alone.
std::vector<LinkCost> rank_links(const StepScenario& scenario,
                                 const StepRun& healthy_run,
                                 double scale,
                                 int jobs,
                                 ProgressBar& progress) {
  std::vector<std::size_t> candidates;
  for (std::size_t l = 0; l < healthy_run.link_names.size(); ++l) {
    if (healthy_run.fabric_link[l] && healthy_run.result.link_bytes[l] > 0.0) {
      candidates.push_back(l);
    }
  }
  std::vector<LinkCost> costs(candidates.size());
  const StepScenario base = healthy(scenario);
  progress.add_work(candidates.size() * instance_count(base));
  run_parallel(candidates.size(), jobs, [&](std::size_t i) {
    StepScenario degraded = base;
    models::LinkFault fault;
    fault.link = healthy_run.link_names[candidates[i]];
    fault.rate_scale = scale;
    fault.json_pointer = "--rank-links";
    degraded.faults.links.push_back(fault);
    costs[i].link = fault.link;
    costs[i].step_time = run_counted(std::move(degraded), progress).result.step_time;
  });
  // Costliest first; ties in link order, so the ranking does not depend on the thread count.
  std::stable_sort(costs.begin(), costs.end(),
                   [](const LinkCost& a, const LinkCost& b) { return a.step_time > b.step_time; });
  return costs;
}

struct StepCommandOptions {
  std::string path;
  std::string system_argument;
  std::string faults_path;
  OutputFormat format = OutputFormat::kText;
  std::string profile_path;
  std::string report_dir;            // --report: the page of the step
  std::optional<double> link_scale;  // --rank-links
  int jobs = 0;                      // 0: all cores
  models::WorkLimit limit;           // --max-memory
  bool quiet = false;                // no progress line
};

// nullopt after --help.
std::optional<StepCommandOptions> parse_options(const std::vector<std::string>& args,
                                                std::ostream& out) {
  StepCommandOptions o;
  std::string format = "table";
  double link_scale = 0.0;
  po::options_description options(
      "railsim step WORKLOAD.json [--system PRESET|FILE] [--faults FAULTS.json] "
      "[--format table|json] [--report DIR] [--rank-links SCALE] [--max-memory SIZE]");
  options.add_options()("workload", po::value(&o.path)->required(),
                        "a file with a /step (docs/workloads.md)")(
      "system", po::value(&o.system_argument),
      "the system to run it on (a preset or a scenario file), instead of the file's /system")(
      "faults", po::value(&o.faults_path),
      "a fault file: links degraded (also on a schedule), stragglers, GPUDirect RDMA off")(
      "format", po::value(&format)->default_value("table"), "table or json")(
      "profile", po::value(&o.profile_path), "a calibration profile (railsim calibrate -o)")(
      "report", po::value(&o.report_dir),
      "also write the step as a page to this folder: the ranks' timeline, the critical path, "
      "each fault's cost")(
      "rank-links", po::value(&link_scale),
      "rank the fabric's links by the step time each would cost at this rate scale, in (0, 1)")(
      "jobs", po::value(&o.jobs), "threads for --rank-links (default: all cores)");
  add_max_memory_option(options, o.limit);
  add_quiet_option(options, o.quiet);
  po::positional_options_description positional;
  positional.add("workload", 1);
  po::variables_map vm;
  if (!parse_command_line(args, options, positional,
                          "Runs one training step on a system, with and without faults.", out,
                          vm)) {
    return std::nullopt;
  }
  o.format = parse_format(format, kFormats);
  if (vm.count("rank-links") != 0) {
    if (!(link_scale > 0.0 && link_scale < 1.0)) {
      throw sim::InputError(fmt::format("--rank-links: expected a rate scale in (0, 1), got {}",
                                        vm["rank-links"].as<double>()));
    }
    o.link_scale = link_scale;
  }
  if (vm.count("jobs") != 0 && o.jobs < 1) {
    throw sim::InputError(fmt::format("--jobs: expected at least 1, got {}", o.jobs));
  }
  return o;
}

// The step, with its faults: the healthy baseline and what each fault costs alone, each job
// alone beside the others, and with --rank-links what each fabric link would cost. Each phase
// instance of each step run counts on `progress`.
StepReport make_report(const StepCommandOptions& o,
                       const StepScenario& scenario,
                       ProgressBar& progress) {
  StepReport report;
  report.workload = scenario.workload.name.empty() ? o.path : scenario.workload.name;
  report.system = scenario.system.name;
  const std::vector<FaultItem> items = fault_items(scenario);
  const bool needs_healthy = !items.empty() || o.link_scale.has_value();
  const std::vector<StepScenario> alone =
      scenario.co_jobs.empty() ? std::vector<StepScenario>{} : jobs_alone(scenario);
  std::size_t instances = instance_count(scenario) *
                          (1 + (needs_healthy ? 1 : 0) + (items.size() > 1 ? items.size() : 0));
  for (const StepScenario& job : alone) {
    instances += instance_count(job);
  }
  progress.add_work(instances);
  const auto counted = [&progress](const StepScenario& run) { return run_counted(run, progress); };
  report.run = counted(scenario);
  const StepRun healthy_run = needs_healthy ? counted(healthy(scenario)) : report.run;
  report.healthy_step_time = healthy_run.result.step_time;
  if (items.size() > 1) {
    // With one fault, its cost alone is the slowdown itself.
    for (const FaultItem& item : items) {
      report.faults.push_back(
          {item.label, item.where, item.nodes, counted(item.alone).result.step_time});
    }
  } else if (items.size() == 1) {
    const FaultItem& item = items.front();
    report.faults.push_back({item.label, item.where, item.nodes, report.run.result.step_time});
  }
  if (!scenario.co_jobs.empty()) {
    for (std::size_t j = 0; j < alone.size(); ++j) {
      const models::StepResult& shared = j == 0 ? report.run.result : report.run.co_results[j - 1];
      report.jobs.push_back(
          {alone[j].workload.name.empty() ? fmt::format("job {}", j) : alone[j].workload.name,
           alone[j].workload.nodes, shared.step_time, counted(alone[j]).result.step_time});
    }
  }
  if (o.link_scale) {
    report.link_scale = *o.link_scale;
    report.link_costs = rank_links(scenario, healthy_run, *o.link_scale, o.jobs, progress);
  }
  return report;
}

int run(const StepCommandOptions& o, std::ostream& out) {
  check_output_folder(o.report_dir, {"index.html"}, "--report",
                      {o.path, o.system_argument, o.faults_path, o.profile_path});
  const StepScenario scenario =
      load_step_scenario(o.path, o.system_argument, o.faults_path, o.profile_path, o.limit);
  ProgressBar progress(0, progress_stream(o.quiet), "phase");
  const StepReport report = make_report(o, scenario, progress);
  progress.finish();
  if (!o.report_dir.empty()) {
    report::write_report(o.report_dir, step_report_page(scenario.workload, report));
  }
  if (o.format == OutputFormat::kJson) {
    print_step_json(out, scenario.workload, report);
  } else {
    print_step_table(out, scenario.workload, report);
  }
  return 0;
}

}  // namespace

int run_step_command(const std::vector<std::string>& args, std::ostream& out) {
  return parse_and_run(args, out, parse_options, run);
}

}  // namespace railsim::tools
