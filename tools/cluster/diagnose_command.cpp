// File: tools/cluster/diagnose_command.cpp
// `railsim diagnose CLUSTER --system PRESET|FILE [--profile P.json] [--format text|json]
// [-o OUT] [--top N] [--jobs N] [--report DIR]`: the faults that make the design reproduce a
// cluster's measurements (calibrate/diagnose/fault_diagnosis.hpp), ranked, each with the
// faults-file entries that reproduce it, and the first one's predictions beside what was measured.
// The cluster is read as `railsim check` reads it (docs/acceptance.md). Exit status 0; 1 when no
// explanation comes within the model's accuracy of the measurements (the ranking is then only
// what comes closest); 2 for bad input.
#include "calibrate/check/nccl_setup_check.hpp"
#include "calibrate/diagnose/fault_diagnosis.hpp"
#include "calibrate/fit/cluster_measurements.hpp"
#include "calibrate/parse/cluster_evidence.hpp"
#include "sim/input_error.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/cluster/cluster_options.hpp"
#include "tools/cluster/diagnose_report.hpp"
#include "tools/cluster/diagnosis_view.hpp"
#include "tools/command.hpp"
#include "tools/parallel_runs.hpp"
#include "tools/progress_bar.hpp"
#include "tools/report/report_page.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;
using calibrate::diagnose::Diagnosis;
using calibrate::diagnose::Explanation;

std::string text_report(const DiagnosisView& view, int top) {
  const Diagnosis& d = view.diagnosis;
  std::string text = fmt::format("railsim diagnose: {} against {}\n", view.source, view.design);
  text += fmt::format(
      "{} measurements, {} explanations evaluated ({} single faults screened on {} rows, {} of "
      "them in full, {} stopped part-way by the bound)\n",
      d.measurements.size(), d.candidates, d.screened, d.screen_rows, d.completed, d.stopped);
  text += view.cost_note() + "\n";
  for (const std::string& note : d.notes) {
    text += fmt::format("  {}\n", note);
  }
  if (!view.nccl_setup.empty()) {
    text += "\nNCCL's INFO lines contradict the design (as railsim check's nccl layer judges):\n";
  }
  for (const calibrate::check::Finding& f : view.nccl_setup) {
    text += fmt::format("  {}: {} of {}: measured {}; expected {}\n    next: {}\n", f.evidence,
                        f.check, f.element, f.measured, f.expected, f.next);
  }
  for (const std::string& note : {view.cut_short_note(), view.unexplained_note()}) {
    if (!note.empty()) {
      text += fmt::format("\n{}\n", note);
    }
  }
  text +=
      fmt::format("\n{:<5} {:<52} {:>9} {:>10}\n", "rank", "explanation", "rms error", "criterion");
  const std::vector<ListedGroup> groups = view.listed_groups(top);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const Explanation* e : groups[g].shown) {
      const bool head = e == groups[g].shown.front();
      text += fmt::format("{:<5} {:<52} {:>8.2f}% {:>10.1f}\n", head ? std::to_string(g + 1) : "",
                          (head ? "" : "or ") + view.name(*e), 100.0 * view.rms_error(*e),
                          e->criterion);
    }
    if (!groups[g].more.empty()) {
      text += fmt::format("{:<5} or {}\n", "", groups[g].more);
    }
  }
  const Explanation& first = d.ranked.front();
  if (!first.faults.empty()) {
    text += "\nto confirm it:\n";
    for (const Explanation* e : groups.front().shown) {
      for (const models::ElementFault& f : e->faults) {
        text += fmt::format("  {}: {}\n", view.name(f), models::fault_next_step(f));
      }
    }
    if (!groups.front().more.empty()) {
      text += fmt::format("  and the {}\n", groups.front().more);
    }
    if (const std::vector<std::string> entries = view.entries(first); !entries.empty()) {
      text += "as a faults file (railsim step --faults), with the design:\n  {\"faults\": [\n";
      text += fmt::format("    {}\n  ]}}\n", fmt::join(entries, ",\n    "));
    }
  }
  text += fmt::format(
      "\nmeasured against the first explanation, where it differs from the design:\n"
      "{:<40} {:>10} {:>10} {:>10}        {}\n",
      "measurement", "measured", "design", "explained", "row");
  for (const std::size_t i : view.changed(first)) {
    const calibrate::fit::Measurement& m = d.measurements[i];
    text += fmt::format("{:<40} {:>10.3f} {:>10.3f} {:>10.3f} {:<6} {}\n", view.describe(m),
                        m.measured, view.design_figure(i), first.predicted[i],
                        calibrate::fit::measured_unit(m.kind), m.source);
  }
  return text;
}

std::string json_report(const DiagnosisView& view, int top) {
  const Diagnosis& d = view.diagnosis;
  nlohmann::ordered_json doc;
  doc["source"] = view.source;
  doc["design"] = view.design;
  doc["measurements"] = d.measurements.size();
  doc["notes"] = d.notes;
  nlohmann::ordered_json setup = nlohmann::ordered_json::array();
  for (const calibrate::check::Finding& f : view.nccl_setup) {
    setup.push_back({{"check", f.check},
                     {"element", f.element},
                     {"evidence", f.evidence},
                     {"expected", f.expected},
                     {"measured", f.measured},
                     {"next", f.next}});
  }
  doc["nccl_setup"] = std::move(setup);
  doc["evaluated"] = d.candidates;
  doc["screened"] = d.screened;
  doc["screen_rows"] = d.screen_rows;
  doc["completed"] = d.completed;
  doc["stopped"] = d.stopped;
  doc["model_runs"] = d.model_runs;
  doc["distinct"] = d.distinct();  // groups among the explanations ranked
  doc["cut_short"] = d.cut_short;  // by --time-budget
  if (d.cut_short) {
    doc["left_unpredicted"] = d.left_unpredicted;
    doc["left_best_rms_error"] =
        d.left_unpredicted > 0 ? nlohmann::ordered_json(std::sqrt(
                                     d.left_bound_sse / static_cast<double>(d.measurements.size())))
                               : nlohmann::ordered_json(nullptr);
  }
  doc["explained"] = view.explained();
  nlohmann::ordered_json ranked = nlohmann::ordered_json::array();
  for (const Explanation& e : d.ranked) {
    if (e.group >= top) {
      continue;
    }
    nlohmann::ordered_json faults = nlohmann::ordered_json::array();
    for (const models::ElementFault& f : e.faults) {
      faults.push_back({{"name", view.name(f)}, {"next", models::fault_next_step(f)}});
    }
    nlohmann::ordered_json entries = nlohmann::ordered_json::array();
    for (const std::string& entry : view.entries(e)) {
      entries.push_back(nlohmann::ordered_json::parse(entry));
    }
    ranked.push_back({{"rank", e.group + 1},
                      {"explanation", view.name(e)},
                      {"faults", std::move(faults)},
                      {"fault_entries", std::move(entries)},
                      {"rms_error", view.rms_error(e)},
                      {"criterion", e.criterion}});
  }
  doc["ranked"] = std::move(ranked);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  const Explanation& first = d.ranked.front();
  for (std::size_t i = 0; i < d.measurements.size(); ++i) {
    const calibrate::fit::Measurement& m = d.measurements[i];
    rows.push_back({{"row", m.source},
                    {"measurement", view.describe(m)},
                    {"unit", calibrate::fit::measured_unit(m.kind)},
                    {"measured", m.measured},
                    {"design", view.design_figure(i)},
                    {"explained", first.predicted[i]}});
  }
  doc["rows"] = std::move(rows);
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

struct DiagnoseOptions {
  ClusterOptions cluster;
  int top = 5;                 // explanations (ranks) listed
  int jobs = 0;                // threads; 0: all cores
  double time_budget_s = 0.0;  // wall seconds for the search; 0: no limit
  bool quiet = false;          // no progress line
};

// nullopt after --help.
std::optional<DiagnoseOptions> parse_options(const std::vector<std::string>& args,
                                             std::ostream& out) {
  DiagnoseOptions o;
  po::options_description options(
      "railsim diagnose CLUSTER --system PRESET|FILE [--profile P.json] [--format text|json] "
      "[-o OUT] [--top N] [--jobs N] [--time-budget SECONDS] [--report DIR]");
  po::positional_options_description positional;
  o.cluster.add_to(options, positional);
  options.add_options()("top", po::value(&o.top)->default_value(5),
                        "how many explanations (ranks) to list")(
      "jobs,j", po::value(&o.jobs)->default_value(0), "threads; 0: all cores")(
      "time-budget", po::value(&o.time_budget_s)->value_name("SECONDS"),
      "end the search after this many seconds (wall clock, from the start), ranking what it "
      "predicted in full and saying what it left");
  add_quiet_option(options, o.quiet);
  po::variables_map vm;
  if (!parse_command_line(args, options, positional,
                          "Ranks the faults that make the design reproduce a cluster's "
                          "measurements: a NIC's port or PCIe link slow, a NIC down or on the "
                          "other socket, GPUDirect RDMA off, two cables swapped, a cable between "
                          "switches slow, leaves short of uplinks, static ECMP, ECMP "
                          "collisions, and pairs of them.",
                          out, vm)) {
    return std::nullopt;
  }
  if (o.top < 1) {
    throw sim::InputError(fmt::format("--top: expected 1 or more, got {}", o.top));
  }
  if (o.jobs < 0) {
    throw sim::InputError(fmt::format("--jobs: expected 0 or more, got {}", o.jobs));
  }
  if (vm.count("time-budget") > 0 && !(o.time_budget_s > 0.0 && std::isfinite(o.time_budget_s))) {
    throw sim::InputError(
        fmt::format("--time-budget: expected seconds above 0, got {}", o.time_budget_s));
  }
  return o;
}

// The failed findings of check's nccl setup layer on every NCCL log of the cluster.
std::vector<calibrate::check::Finding> nccl_setup_failures(
    const calibrate::parse::ClusterEvidence& evidence, const models::SystemSpec& design) {
  std::vector<calibrate::check::Finding> all;
  for (const calibrate::parse::NcclEvidence& run : evidence.nccl) {
    calibrate::check::check_nccl_setup(run, design, all);
  }
  std::erase_if(all, [](const calibrate::check::Finding& f) {
    return f.verdict != calibrate::check::Verdict::kFail;
  });
  return all;
}

int run(const DiagnoseOptions& d, std::ostream& out) {
  const auto started = std::chrono::steady_clock::now();
  const ClusterOptions& o = d.cluster;
  const OutputFormat format = o.output_format();
  calibrate::fit::CalibratedModel model = o.model();
  const calibrate::parse::ClusterEvidence evidence = o.evidence();
  model.system.nodes = static_cast<int>(evidence.nodes.size());
  std::vector<std::string> hosts;
  hosts.reserve(evidence.nodes.size());
  for (const calibrate::parse::NodeEvidence& node : evidence.nodes) {
    hosts.push_back(node.name);
  }
  calibrate::diagnose::DiagnosisOptions diagnosis_options;
  diagnosis_options.listed = d.top;
  // One progress line per stage of the search (each candidate's model runs, then the fits).
  diagnosis_options.for_each = [jobs = d.jobs, progress = progress_stream(d.quiet)](
                                   std::size_t count,
                                   const std::function<void(std::size_t)>& work) {
    ProgressBar bar(count, progress, "run");
    run_parallel(count, jobs, [&](std::size_t i) {
      work(i);
      bar.advance();
    });
    bar.finish();
  };
  if (d.time_budget_s > 0.0) {
    const auto deadline = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                        std::chrono::duration<double>(d.time_budget_s));
    diagnosis_options.out_of_time = [deadline] {
      return std::chrono::steady_clock::now() >= deadline;
    };
  }
  const DiagnosisView view{
      evidence.source,
      o.system,
      model.system,
      calibrate::diagnose::diagnose(
          model, calibrate::fit::cluster_measurements(evidence, model.system), diagnosis_options),
      std::move(hosts),
      nccl_setup_failures(evidence, model.system)};
  const std::string text =
      format == OutputFormat::kJson ? json_report(view, d.top) : text_report(view, d.top);
  if (!o.report_dir.empty()) {
    report::write_report(o.report_dir, diagnose_report_page(view, d.top));
  }
  o.write(text, out);
  return view.explained() ? 0 : 1;
}

}  // namespace

int run_diagnose(const std::vector<std::string>& args, std::ostream& out) {
  return parse_and_run(args, out, parse_options, run);
}

}  // namespace railsim::tools
