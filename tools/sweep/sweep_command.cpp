// File: tools/sweep/sweep_command.cpp
// `railsim sweep SWEEP.json [--jobs N] [--out DIR] [--shard K/N] [--report DIR]` and
// `railsim sweep --merge DIR... [--out DIR] [--report DIR]`: a sweep file's points run in
// parallel, or shard outputs joined, and optionally an HTML report of them (docs/sweeps.md).
// Nothing is written unless every point ran.
#include "sim/input_error.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/cli_support/output_folder.hpp"
#include "tools/command.hpp"
#include "tools/max_memory_option.hpp"
#include "tools/progress_bar.hpp"
#include "tools/report/report_page.hpp"
#include "tools/sweep/sweep_evaluate.hpp"
#include "tools/sweep/sweep_file.hpp"
#include "tools/sweep/sweep_merge.hpp"
#include "tools/sweep/sweep_report.hpp"
#include "tools/sweep/sweep_results.hpp"
#include "tools/sweep/sweep_runner.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;

void print_written(std::ostream& out, const sweep::SweepResults& results, const std::string& dir) {
  fmt::print(out, "sweep {}{}: {} points, {} rows: {}/results.csv, {}/results.json\n",
             results.sweep, results.shard ? " shard " + sweep::shard_text(*results.shard) : "",
             results.points, results.rows.size(), dir, dir);
}

struct SweepOptions {
  std::string path;
  int jobs = 0;  // 0: one per core
  std::string out_dir;
  std::string shard_text;
  std::string report_dir;
  std::vector<std::string> merge;  // the shards' folders to join instead of running
  models::WorkLimit limit;         // --max-memory, for each point
  bool quiet = false;              // no progress line
};

// nullopt after --help. Checks everything it can before a point runs.
std::optional<SweepOptions> parse_options(const std::vector<std::string>& args, std::ostream& out) {
  SweepOptions o;
  po::options_description options(
      "railsim sweep SWEEP.json [--jobs N] [--out DIR] [--shard K/N] [--report DIR] "
      "[--max-memory SIZE]\n"
      "railsim sweep --merge DIR... [--out DIR] [--report DIR]");
  options.add_options()("sweep", po::value(&o.path), "a sweep file (docs/sweeps.md)")(
      "jobs,j", po::value(&o.jobs)->default_value(0), "points run at once; 0: one per core")(
      "out,o", po::value(&o.out_dir),
      "write results.csv and results.json into this folder (created if absent); "
      "without it the CSV goes to stdout")(
      "shard", po::value(&o.shard_text),
      "run only shard K of N: the points i with i % N == K - 1 (Slurm: "
      "$SLURM_ARRAY_TASK_ID/N with --array=1-N)")(
      "merge", po::value(&o.merge)->multitoken(),
      "join the outputs of a sweep's shards, written by --out, into one")(
      "report", po::value(&o.report_dir),
      "write an HTML page of plots and tables of the results, DIR/index.html, and each plot "
      "as DIR/<name>.svg (not with --shard)");
  add_max_memory_option(options, o.limit, "for each point, and --jobs run at once");
  add_quiet_option(options, o.quiet);
  po::positional_options_description positional;
  positional.add("sweep", 1);
  po::variables_map vm;
  if (!parse_command_line(args, options, positional,
                          "Runs every point of a sweep file, in parallel, into one table.", out,
                          vm)) {
    return std::nullopt;
  }
  if (!o.report_dir.empty()) {
    if (!o.shard_text.empty()) {
      throw sim::InputError(
          "--report shows the whole sweep: run it on the merged shards (--merge DIR... --report "
          "DIR), not with --shard");
    }
  }
  if (!o.merge.empty()) {
    if (!o.path.empty() || !o.shard_text.empty()) {
      throw sim::InputError("--merge joins finished outputs: give no sweep file or --shard");
    }
    return o;
  }
  if (o.path.empty()) {
    throw sim::InputError("expected a sweep file (railsim sweep SWEEP.json) or --merge DIR...");
  }
  if (o.jobs < 0) {
    throw sim::InputError(fmt::format("--jobs: expected 0 (one per core) or more, got {}", o.jobs));
  }
  return o;
}

// The sweep file's points (this shard's), run in parallel.
sweep::SweepResults run_sweep_file(const SweepOptions& o) {
  const sweep::SweepFile file = sweep::read_sweep_file(o.path);
  sweep::RunOptions run;
  run.jobs = o.jobs;
  if (!o.shard_text.empty()) {
    run.shard = sweep::parse_shard(o.shard_text);
  }
  run.progress = progress_stream(o.quiet);
  return sweep::run_points(
      file,
      [&o](const models::scenario::JsonValue& point) {
        return sweep::evaluate_point_within(point, o.limit);
      },
      run);
}

// Fails before the sweep runs, rather than after an hour of it, when an output folder cannot be
// written or would overwrite an input (`--merge sh1 sh2 --out sh1`).
void check_outputs(const SweepOptions& o) {
  std::vector<std::string> inputs = {o.path};
  for (const std::string& folder : o.merge) {
    inputs.push_back((std::filesystem::path(folder) / "results.json").string());
    inputs.push_back((std::filesystem::path(folder) / "results.csv").string());
  }
  check_output_folder(o.out_dir, {"results.csv", "results.json"}, "--out", inputs);
  check_output_folder(o.report_dir, {"index.html"}, "--report", inputs);
  // Each folder is replaced whole and may hold files only, so neither can hold the other.
  if (!o.out_dir.empty() && !o.report_dir.empty()) {
    const std::filesystem::path out = std::filesystem::weakly_canonical(o.out_dir);
    const std::filesystem::path report = std::filesystem::weakly_canonical(o.report_dir);
    const auto inside = [](const std::filesystem::path& inner, const std::filesystem::path& outer) {
      const std::filesystem::path relative = inner.lexically_relative(outer);
      return !relative.empty() && relative != "." && *relative.begin() != "..";
    };
    if (inside(report, out) || inside(out, report)) {
      throw sim::InputError(fmt::format(
          "--report {} and --out {}: one inside the other, but railsim replaces each folder "
          "whole; give them separate folders (or the same one)",
          o.report_dir, o.out_dir));
    }
  }
}

int run(const SweepOptions& o, std::ostream& out) {
  check_outputs(o);
  const sweep::SweepResults results =
      o.merge.empty() ? run_sweep_file(o) : sweep::merge_results(o.merge);
  // The report goes first: a folder it cannot write is then an error with no output at all.
  if (!o.report_dir.empty()) {
    report::write_report(o.report_dir, sweep::sweep_report(results));
  }
  if (o.out_dir.empty()) {
    out << sweep::results_csv(results);
    return 0;
  }
  sweep::write_results(o.out_dir, results);
  print_written(out, results, o.out_dir);
  if (!o.report_dir.empty()) {
    fmt::print(out, "report: {}/index.html\n", o.report_dir);
  }
  return 0;
}

}  // namespace

int run_sweep_command(const std::vector<std::string>& args, std::ostream& out) {
  return parse_and_run(args, out, parse_options, run);
}

}  // namespace railsim::tools
