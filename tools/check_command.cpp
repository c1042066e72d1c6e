// File: tools/check_command.cpp
// `railsim check CLUSTER --system PRESET|FILE [--profile P.json] [--format text|json] [-o OUT]
// [--report DIR]`: a cluster's measurements (a manifest .json or a directory,
// calibrate/cluster_evidence.hpp) checked layer by layer against the design
// (calibrate/cluster_check.hpp), with an HTML page of it (tools/check_report.hpp). Exit status 0
// when every check passes, 1 when one fails, 2 for bad input.
#include "calibrate/cluster_check.hpp"
#include "calibrate/cluster_evidence.hpp"
#include "models/scenario/system_file.hpp"
#include "sim/input_error.hpp"
#include "tools/check_report.hpp"
#include "tools/command.hpp"
#include "tools/command_line.hpp"
#include "tools/output_file.hpp"
#include "tools/profile_option.hpp"
#include "tools/report/report_page.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;
using calibrate::CheckReport;
using calibrate::Finding;
using calibrate::Verdict;

std::string text_report(const CheckReport& report) {
  std::string text = fmt::format("railsim check: {} against {}\n", report.source, report.design);
  std::optional<calibrate::CheckLayer> layer;
  std::map<std::string, int> counts;
  for (const Finding& f : report.findings) {
    if (layer != f.layer) {
      layer = f.layer;
      text += fmt::format("\n{}\n", to_string(f.layer));
    }
    ++counts[to_string(f.verdict)];
    const std::string severity = to_string(f.severity);
    text += fmt::format("  {:<7} {:<8} {:<26} {}{}\n", to_string(f.verdict), severity, f.check,
                        f.element, f.evidence.empty() ? "" : "  [" + f.evidence + "]");
    if (f.verdict != Verdict::kSkipped) {
      text += fmt::format("      expected: {}\n      measured: {}\n", f.expected, f.measured);
    }
    if (!f.next.empty()) {
      text +=
          fmt::format("      {}: {}\n", f.verdict == Verdict::kSkipped ? "why" : "next", f.next);
    }
  }
  text += fmt::format("\n{} checks: {} pass, {} fail, {} skipped\n", report.findings.size(),
                      counts["pass"], counts["FAIL"], counts["skipped"]);
  return text;
}

std::string json_report(const CheckReport& report) {
  nlohmann::ordered_json doc;
  doc["source"] = report.source;
  doc["design"] = report.design;
  doc["passed"] = !report.failed();
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  for (const Finding& f : report.findings) {
    findings.push_back({{"layer", to_string(f.layer)},
                        {"check", f.check},
                        {"element", f.element},
                        {"evidence", f.evidence},
                        {"expected", f.expected},
                        {"measured", f.measured},
                        {"verdict", f.verdict == Verdict::kFail ? "fail" : to_string(f.verdict)},
                        {"severity", to_string(f.severity)},
                        {"next", f.next}});
  }
  doc["findings"] = std::move(findings);
  return doc.dump(2) + "\n";
}

}  // namespace

int run_check(const std::vector<std::string>& args, std::ostream& out) {
  std::string cluster;
  std::string system;
  std::string profile_path;
  std::string format;
  std::string output;
  std::string report_dir;
  po::options_description options(
      "railsim check CLUSTER --system PRESET|FILE [--profile P.json] [--format text|json] "
      "[-o OUT] [--report DIR]");
  options.add_options()("cluster", po::value(&cluster)->required(),
                        "a manifest .json, or a directory of topo/, ibstat/, ibdev2netdev/, "
                        "perftest/, nccl/ logs (docs/acceptance.md)")(
      "system", po::value(&system)->required(), "the design: a node preset or a system file")(
      "profile", po::value(&profile_path),
      "a calibration profile (railsim calibrate -o) for the model's predictions")(
      "format", po::value(&format)->default_value("text"), "text or json")(
      "output,o", po::value(&output), "write the report to this file instead of stdout")(
      "report", po::value(&report_dir),
      "also write an HTML page (index.html and its SVG figures) into this folder");
  po::positional_options_description positional;
  positional.add("cluster", 1);
  po::variables_map vm;
  if (!parse_command_line(args, options, positional,
                          "Checks a cluster's measurements against its design, layer by layer: "
                          "exit status 0 when all pass, 1 when a check fails.",
                          out, vm)) {
    return 0;
  }
  if (format != "text" && format != "json") {
    throw sim::InputError("--format: expected text or json, got '" + format + "'");
  }
  const models::scenario::SystemFile design = models::scenario::system_from_argument(system);
  calibrate::CalibratedModel model{design.system, {}};
  if (const std::optional<LoadedProfile> profile = load_profile(profile_path)) {
    apply_profile(*profile, model.system, model.collective);
  }
  const calibrate::ClusterEvidence evidence = calibrate::read_cluster_evidence(cluster);
  const CheckReport report = calibrate::check_cluster(evidence, model, system);
  const std::string text = format == "json" ? json_report(report) : text_report(report);
  if (!report_dir.empty()) {
    report::write_report(report_dir, check_report_page(report, evidence));
  }
  if (output.empty()) {
    out << text;
  } else {
    write_output_file(output, text, "-o");
  }
  return report.failed() ? 1 : 0;
}

}  // namespace railsim::tools
