// File: tools/collective/run_command.cpp
// `railsim run SCENARIO.json`: the scenario's collective workload on its system, with its
// faults and background traffic, printed as `railsim collective` prints a size series.
#include "tools/cli_support/command_line.hpp"
#include "tools/cli_support/output_checks.hpp"
#include "tools/collective/size_series.hpp"
#include "tools/command.hpp"
#include "tools/gdr_level_option.hpp"
#include "tools/ib_hca_option.hpp"
#include "tools/max_memory_option.hpp"
#include "tools/progress_bar.hpp"

#include <boost/program_options.hpp>

#include <optional>
#include <string>
#include <vector>

namespace railsim::tools {

namespace {

namespace po = boost::program_options;

struct ScenarioRunOptions {
  std::string path;
  OutputFormat format = OutputFormat::kText;
  TraceOptions trace;
  std::string profile_path;
  std::optional<models::PathClass> gdr_level;  // --gdr-level, over the scenario's
  std::optional<models::IbHcaFilter> ib_hca;   // --ib-hca, over the scenario's
  models::WorkLimit limit;                     // --max-memory
  bool quiet = false;                          // no progress line
};

// nullopt after --help.
std::optional<ScenarioRunOptions> parse_options(const std::vector<std::string>& args,
                                                std::ostream& out) {
  ScenarioRunOptions o;
  std::string format = "table";
  po::options_description options(
      "railsim run SCENARIO.json [--format table|json|csv] [--trace OUT.json [--trace-sizes "
      "S,...]] "
      "[--profile P.json]");
  options.add_options()("scenario", po::value(&o.path)->required(),
                        "a scenario file with a workload")(
      "format", po::value(&format)->default_value("table"),
      "table (nccl-tests' columns), json or csv")(
      "profile", po::value(&o.profile_path),
      "a calibration profile (railsim calibrate -o): its parameters, with a one-sigma band");
  add_gdr_level_option(options, o.gdr_level);
  add_ib_hca_option(options, o.ib_hca);
  add_trace_options(options, o.trace);
  add_max_memory_option(options, o.limit);
  add_quiet_option(options, o.quiet);
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (!parse_command_line(args, options, positional,
                          "Runs a scenario's collective workload on its system.", out, vm)) {
    return std::nullopt;
  }
  o.format = parse_format(format, kTableJsonCsv);
  return o;
}

int run(const ScenarioRunOptions& o, std::ostream& out) {
  check_output_file(o.trace.path, "--trace", {o.path, o.profile_path});
  models::scenario::ScenarioFile scenario = models::scenario::load_scenario_file(o.path);
  apply_gdr_level_option(o.gdr_level, scenario.system.system);
  apply_ib_hca_option(o.ib_hca, scenario.system.system);
  const models::scenario::CollectiveWorkload workload = workload_of(scenario, o.path);
  check_series_memory(scenario.system, workload, o.limit, o.path);
  TraceOptions trace = o.trace;
  resolve_trace_options(trace, workload_sizes(workload));
  const std::optional<LoadedProfile> profile = load_profile(o.profile_path);
  run_and_print(out, scenario, workload, o.format, trace, profile ? &*profile : nullptr,
                progress_stream(o.quiet));
  return 0;
}

}  // namespace

int run_run(const std::vector<std::string>& args, std::ostream& out) {
  return parse_and_run(args, out, parse_options, run);
}

}  // namespace railsim::tools
