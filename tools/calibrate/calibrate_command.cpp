// File: tools/calibrate/calibrate_command.cpp
// `railsim calibrate`: fits the model's named parameters (calibrate/fit/model_parameters.hpp) to a
// cluster's own perftest and nccl-tests outputs and writes them as a profile; with --check,
// prints each measured row beside the model's prediction (under --profile, if given) instead.
#include "calibrate/fit/cabling_fit.hpp"
#include "calibrate/fit/calibration.hpp"
#include "calibrate/fit/measurements.hpp"
#include "calibrate/fit/profile.hpp"
#include "calibrate/parse/nccl_tests.hpp"
#include "calibrate/parse/nvidia_smi_topo.hpp"
#include "calibrate/parse/perftest.hpp"
#include "calibrate/parse/plausibility.hpp"
#include "calibrate/parse/text_input.hpp"
#include "calibrate/parse/topo_import.hpp"
#include "models/collective/collective_types.hpp"
#include "models/fabric/cabling.hpp"
#include "models/scenario/quantity.hpp"
#include "models/scenario/system_file.hpp"
#include "sim/input_error.hpp"
#include "sim/median.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/cli_support/named_choice.hpp"
#include "tools/cli_support/output_checks.hpp"
#include "tools/cli_support/output_file.hpp"
#include "tools/command.hpp"
#include "tools/progress_bar.hpp"
#include "tools/strict_option.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;

std::vector<const calibrate::fit::ModelParameter*> parameters_named(const std::string& list) {
  std::vector<const calibrate::fit::ModelParameter*> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, comma - start);
    std::vector<std::string_view> names;
    for (const calibrate::fit::ModelParameter& q : calibrate::fit::model_parameters()) {
      names.emplace_back(q.name);
    }
    // An unknown name is refused with the names and the closest one.
    const calibrate::fit::ModelParameter* p =
        &calibrate::fit::model_parameters()[named_index("--fit", name, names)];
    if (std::find(out.begin(), out.end(), p) == out.end()) {
      out.push_back(p);
    }
    start = comma + 1;
  }
  return out;
}

// A size option's bytes (nccl-tests' suffixes), or `absent` when not given.
std::int64_t size_option(const std::string& text, const char* option, std::int64_t absent) {
  if (text.empty()) {
    return absent;
  }
  try {
    return models::scenario::parse_size(text).count;
  } catch (const sim::InputError& error) {
    throw sim::InputError(fmt::format("{}: {}", option, error.what()));
  }
}

std::string status_text(calibrate::fit::VariableStatus status) {
  switch (status) {
    case calibrate::fit::VariableStatus::kFitted:
      return "fitted";
    case calibrate::fit::VariableStatus::kAtBound:
      return "at a bound";
    case calibrate::fit::VariableStatus::kNotInformed:
      return "not informed by the data";
  }
  return "?";
}

std::string what_of(const calibrate::fit::Measurement& m) {
  switch (m.kind) {
    case calibrate::fit::MeasurementKind::kCollectiveTime:
      return fmt::format("{} {}x{}", models::op_name(m.op), m.nodes, m.gpus_per_node);
    case calibrate::fit::MeasurementKind::kRdmaBandwidth:
      return "rdma stream";
    case calibrate::fit::MeasurementKind::kRdmaLatency:
      return "rdma ping-pong";
  }
  return "?";
}

double median_abs(std::vector<double> v) {
  if (v.empty()) {
    return std::nan("");
  }
  for (double& x : v) {
    x = std::abs(x);
  }
  return sim::median(std::move(v));
}

std::string percent(double fraction) {
  return std::isnan(fraction) ? std::string("-") : fmt::format("{:.1f}%", 100.0 * fraction);
}

// Median |error| over collective rows of >= 64 MiB, collective rows below, and RDMA rows.
void print_error_summary(std::ostream& out,
                         const char* label,
                         const std::vector<calibrate::fit::RowCheck>& rows) {
  std::vector<double> large;
  std::vector<double> small;
  std::vector<double> rdma;
  for (const calibrate::fit::RowCheck& r : rows) {
    if (r.measurement.kind != calibrate::fit::MeasurementKind::kCollectiveTime) {
      rdma.push_back(r.error);
    } else if (r.measurement.size_bytes >= (std::int64_t{64} << 20)) {
      large.push_back(r.error);
    } else {
      small.push_back(r.error);
    }
  }
  fmt::print(out,
             "# {:<8} median |error|: collectives >= 64 MiB {} ({} rows), below {} ({} rows), "
             "RDMA {} ({} rows)\n",
             label, percent(median_abs(large)), large.size(), percent(median_abs(small)),
             small.size(), percent(median_abs(rdma)), rdma.size());
}

void print_rows(std::ostream& out, const std::vector<calibrate::fit::RowCheck>& rows) {
  fmt::print(out, "# {:<44} {:<22} {:>12} {:>12} {:>12} {:>5} {:>8}\n", "row", "measurement",
             "size (B)", "measured", "predicted", "unit", "error");
  for (const calibrate::fit::RowCheck& r : rows) {
    const calibrate::fit::Measurement& m = r.measurement;
    fmt::print(out, "  {:<44} {:<22} {:>12} {:>12.2f} {:>12.2f} {:>5} {:>7.1f}%\n", m.source,
               what_of(m), m.size_bytes, m.measured, r.predicted,
               calibrate::fit::measured_unit(m.kind), 100.0 * r.error);
  }
}

void print_parameters(std::ostream& out, const calibrate::fit::Calibration& c) {
  fmt::print(out, "# {:<28} {:>12} {:>12} {:>12} {:<14} {}\n", "parameter", "default", "fitted",
             "1 sigma", "unit", "status");
  for (const calibrate::fit::FittedParameter& p : c.parameters) {
    const std::string sigma = p.status != calibrate::fit::VariableStatus::kFitted ? "-"
                              : std::isfinite(p.sigma) ? fmt::format("{:.4g}", p.sigma)
                                                       : "unbounded";
    fmt::print(out, "  {:<28} {:>12.6g} {:>12.6g} {:>12} {:<14} {}\n", p.parameter->name, p.initial,
               p.value, sigma, p.parameter->unit, status_text(p.status));
  }
}

// Each cabling the fit tried and which the rows chose (*), with those they cannot tell from it
// (=); a word on stderr where it is not the design's.
void print_cablings(std::ostream& out, const calibrate::fit::Calibration& c) {
  if (c.cablings.empty()) {
    return;
  }
  const models::RailMapping chosen = c.model.system.fabric.rails;
  fmt::print(out, "# {:<28} {:>12} {:>12}\n", "cabling of the rails", "rms error", "criterion");
  std::string chosen_names = models::rail_mapping_key(chosen);
  for (const calibrate::fit::CablingFit& f : c.cablings) {
    const std::string name = fmt::format("{}{}{}", models::rail_mapping_key(f.rails),
                                         &f == &c.cablings.front() ? " (the design)" : "",
                                         f.rails == chosen ? " *"
                                         : f.alike         ? " ="
                                                           : "");
    fmt::print(out, "  {:<28} {:>11.2f}% {:>12.1f}\n", name, 100.0 * f.rms, f.criterion);
    if (f.alike) {
      chosen_names += fmt::format(" or {}", models::rail_mapping_key(f.rails));
    }
  }
  fmt::print(out,
             "# *: the cabling the fit chose (the profile carries it where it is not the "
             "design's); =: one the rows cannot tell from it\n");
  if (chosen != c.cablings.front().rails) {
    fmt::print(stderr,
               "railsim: warning: the rows fit {} cabling of the rails better than the design's "
               "{}: check which leaf each NIC is cabled to (ibnetdiscover); the profile carries "
               "{}\n",
               chosen_names, models::rail_mapping_key(c.cablings.front().rails),
               models::rail_mapping_key(chosen));
  }
}

struct CalibrateOptions {
  std::vector<std::string> perftest_files;
  std::vector<std::string> nccl_files;
  std::string system_name;
  std::string fit_list;
  std::string output;
  std::string profile_path;
  std::string topo_path;
  std::string min_size_text;
  std::string max_size_text;
  bool check = false;   // compare rows with predictions instead of fitting
  bool strict = false;  // an implausible reading is an error, not a warning
  bool quiet = false;   // no progress line
};

// nullopt after --help.
std::optional<CalibrateOptions> parse_options(const std::vector<std::string>& args,
                                              std::ostream& out) {
  CalibrateOptions o;
  po::options_description options(
      "railsim calibrate [--perftest F]... [--nccl-tests F]... [--topo F] --system PRESET|FILE "
      "(-o PROFILE.json | --check [--profile PROFILE.json])");
  options.add_options()("perftest", po::value(&o.perftest_files)->composing(),
                        "a perftest output (ib_write_bw, ib_send_lat, ...), repeatable")(
      "nccl-tests", po::value(&o.nccl_files)->composing(),
      "an nccl-tests output (all_reduce_perf, ...), repeatable")(
      "system", po::value(&o.system_name)->required(),
      "the model to fit: a node preset or a scenario file (.json)")(
      "topo", po::value(&o.topo_path),
      "an nvidia-smi topo -m dump: the server as it shows it replaces --system's node")(
      "fit", po::value(&o.fit_list),
      "parameters to fit, comma-separated (default: those the inputs can inform)")(
      "output,o", po::value(&o.output), "where to write the profile (JSON)")(
      "check", "print each row measured vs predicted instead of fitting")(
      "profile", po::value(&o.profile_path), "with --check: predict under this profile")(
      "min-size", po::value(&o.min_size_text),
      "use only rows of at least this size, e.g. 64M (to hold the others out)")(
      "max-size", po::value(&o.max_size_text), "use only rows of at most this size");
  add_strict_option(options, o.strict);
  add_quiet_option(options, o.quiet);
  po::variables_map vm;
  if (!parse_command_line(args, options,
                          "Fits the model's calibrated parameters to real perftest and "
                          "nccl-tests outputs and writes them as a profile.",
                          out, vm)) {
    return std::nullopt;
  }
  o.check = vm.count("check") > 0;
  if (!o.check && o.output.empty()) {
    throw sim::InputError("-o PROFILE.json is required (or --check to compare without fitting)");
  }
  if (!o.profile_path.empty() && !o.check) {
    throw sim::InputError("--profile is for --check; a fit starts from --system's own values");
  }
  if (o.perftest_files.empty() && o.nccl_files.empty()) {
    throw sim::InputError("no input: give at least one --perftest or --nccl-tests file");
  }
  return o;
}

// The rows of every input within --min-size and --max-size, and the inputs as the profile
// records them. Each parser's notes go to stderr as warnings.
struct Inputs {
  calibrate::fit::MeasurementSet set;
  std::vector<calibrate::fit::ProfileInput> inputs;
};

Inputs read_inputs(const CalibrateOptions& o, const models::SystemSpec& design) {
  Inputs read;
  for (const auto& [files, format] :
       {std::pair{&o.perftest_files, "perftest"}, std::pair{&o.nccl_files, "nccl-tests"}}) {
    for (const std::string& file : *files) {
      const calibrate::parse::TextInput input = calibrate::parse::TextInput::from_file(file);
      std::vector<calibrate::parse::Implausible> implausible;
      if (std::string_view(format) == "perftest") {
        calibrate::parse::PerftestOutput output = calibrate::parse::parse_perftest(input);
        implausible = calibrate::parse::remove_implausible(output);
        calibrate::fit::add_perftest(output, file, read.set);
      } else {
        calibrate::parse::NcclTestsOutput output = calibrate::parse::parse_nccl_tests(input);
        implausible = calibrate::parse::remove_implausible(output);
        calibrate::fit::add_nccl_tests(output, file, design, read.set);
      }
      read.inputs.push_back({file, format, calibrate::fit::content_hash(input.text())});
      for (std::vector<std::string> warnings :
           {calibrate::parse::non_utf8_warnings(input),
            calibrate::parse::implausible_warnings(file, implausible, o.strict)}) {
        std::move(warnings.begin(), warnings.end(), std::back_inserter(read.set.notes));
      }
    }
  }
  const std::int64_t min_size = size_option(o.min_size_text, "--min-size", 0);
  const std::int64_t max_size =
      size_option(o.max_size_text, "--max-size", std::numeric_limits<std::int64_t>::max());
  std::erase_if(read.set.rows, [&](const calibrate::fit::Measurement& m) {
    return m.size_bytes < min_size || m.size_bytes > max_size;
  });
  for (const std::string& note : read.set.notes) {
    fmt::print(stderr, "railsim: warning: {}\n", note);
  }
  return read;
}

// --system, its node replaced by the one --topo's dump shows.
calibrate::fit::CalibratedModel starting_model(const CalibrateOptions& o) {
  calibrate::fit::CalibratedModel start;
  start.system = models::scenario::system_from_argument(o.system_name).system;
  if (o.topo_path.empty()) {
    return start;
  }
  const calibrate::parse::TopoImport imported = calibrate::parse::import_nvidia_smi_topo(
      calibrate::parse::parse_nvidia_smi_topo(calibrate::parse::TextInput::from_file(o.topo_path)),
      o.topo_path);
  for (const std::string& assumed : imported.assumed) {
    fmt::print(stderr, "railsim: warning: {}: not in the dump, assumed (check it): {}\n",
               o.topo_path, assumed);
  }
  start.system.node = imported.node;
  return start;
}

// --check: each row beside its prediction, under --profile when given.
int run_check(const CalibrateOptions& o,
              calibrate::fit::CalibratedModel model,
              const calibrate::fit::MeasurementSet& set,
              std::ostream& out) {
  if (!o.profile_path.empty()) {
    calibrate::fit::apply_profile(calibrate::fit::read_profile(o.profile_path), model);
  }
  const std::vector<calibrate::fit::RowCheck> rows = calibrate::fit::check_rows(model, set);
  print_rows(out, rows);
  print_error_summary(out, "check", rows);
  return 0;
}

int run_fit(const CalibrateOptions& o,
            const calibrate::fit::CalibratedModel& start,
            Inputs read,
            std::ostream& out) {
  const calibrate::fit::MeasurementSet& set = read.set;
  const calibrate::fit::ParameterChoice parameters_for =
      [&](const calibrate::fit::CalibratedModel& under) {
        return o.fit_list.empty() ? calibrate::fit::default_parameters(under, set)
                                  : parameters_named(o.fit_list);
      };
  const std::vector<calibrate::fit::RowCheck> before = calibrate::fit::check_rows(start, set);
  // A fit has no known end (Levenberg-Marquardt stops when its steps no longer help), so the line
  // shows what it has done and how far the error has come, not a time left.
  StatusLine line(progress_stream(o.quiet));
  std::string cabling;
  std::string status;
  const StatusLine::Text text = [&status](double elapsed_s) {
    return fmt::format("{}  {} elapsed", status, duration_text(elapsed_s));
  };
  const calibrate::fit::Calibration calibration = calibrate::fit::calibrate_cabling(
      start, set, parameters_for,
      [&](int evaluations, double start_rms, double best_rms) {
        status =
            fmt::format("fitting{}: {} evaluations of the model, rms error {:.1f}% (from {:.1f}%)",
                        cabling, evaluations, 100.0 * best_rms, 100.0 * start_rms);
        line.update(text);
      },
      [&](models::RailMapping rails, std::size_t index, std::size_t count) {
        cabling = count > 1 ? fmt::format(" under {} cabling ({} of {})",
                                          models::rail_mapping_key(rails), index + 1, count)
                            : std::string();
      });
  line.finish(text);
  const std::string profile = calibrate::fit::profile_json(calibrate::fit::make_profile(
      calibration, o.system_name, start.system.node.name, std::move(read.inputs)));
  write_output_file(o.output, profile, "-o");

  fmt::print(out, "# railsim calibrate: {} rows, system {}\n", set.rows.size(), o.system_name);
  fmt::print(out, "# {} ({} evaluations of the model)\n", calibration.message,
             calibration.evaluations);
  if (!calibration.converged) {
    fmt::print(stderr, "railsim: warning: the fit did not converge: {}\n", calibration.message);
  }
  print_parameters(out, calibration);
  print_cablings(out, calibration);
  print_error_summary(out, "before", before);
  print_error_summary(out, "after", calibration.rows);
  fmt::print(out, "# profile written to {}\n", o.output);
  return 0;
}

int run(const CalibrateOptions& o, std::ostream& out) {
  std::vector<std::string> inputs = o.perftest_files;
  inputs.insert(inputs.end(), o.nccl_files.begin(), o.nccl_files.end());
  inputs.insert(inputs.end(), {o.system_name, o.profile_path, o.topo_path});
  check_output_file(o.output, "-o", inputs);
  const calibrate::fit::CalibratedModel start = starting_model(o);
  Inputs read = read_inputs(o, start.system);
  if (o.check) {
    return run_check(o, start, read.set, out);
  }
  return run_fit(o, start, std::move(read), out);
}

}  // namespace

int run_calibrate(const std::vector<std::string>& args, std::ostream& out) {
  return parse_and_run(args, out, parse_options, run);
}

}  // namespace railsim::tools
