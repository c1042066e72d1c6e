// File: tools/cluster/check_command.cpp
// `railsim check CLUSTER --system PRESET|FILE [--profile P.json] [--format text|json] [-o OUT]
// [--report DIR]`: a cluster's measurements (a manifest .json or a directory,
// calibrate/parse/cluster_evidence.hpp) checked layer by layer against the design
// (calibrate/check/cluster_check.hpp), with an HTML page of it (tools/cluster/check_report.hpp).
// Exit status 0 when every check passes, 1 when one fails, 2 for bad input.
#include "calibrate/check/cluster_check.hpp"
#include "calibrate/parse/cluster_evidence.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/cluster/check_report.hpp"
#include "tools/cluster/cluster_options.hpp"
#include "tools/command.hpp"
#include "tools/report/report_page.hpp"
#include "tools/terminal_colour.hpp"

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
using calibrate::check::CheckReport;
using calibrate::check::Finding;
using calibrate::check::Verdict;

// `colour`: failed checks in red (terminal_colour.hpp).
std::string text_report(const CheckReport& report, bool colour) {
  std::string text = fmt::format("railsim check: {} against {}\n", report.source, report.design);
  std::optional<calibrate::check::CheckLayer> layer;
  std::map<std::string, int> counts;
  for (const Finding& f : report.findings) {
    if (layer != f.layer) {
      layer = f.layer;
      text += fmt::format("\n{}\n", to_string(f.layer));
    }
    ++counts[to_string(f.verdict)];
    const std::string severity = to_string(f.severity);
    const std::string verdict = fmt::format("{:<7}", to_string(f.verdict));
    text +=
        fmt::format("  {} {:<8} {:<26} {}{}\n",
                    f.verdict == Verdict::kFail ? failure_text(verdict, colour) : verdict, severity,
                    f.check, f.element, f.evidence.empty() ? "" : "  [" + f.evidence + "]");
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
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

// nullopt after --help.
std::optional<ClusterOptions> parse_options(const std::vector<std::string>& args,
                                            std::ostream& out) {
  ClusterOptions o;
  po::options_description options(
      "railsim check CLUSTER --system PRESET|FILE [--profile P.json] [--format text|json] "
      "[-o OUT] [--report DIR]");
  po::positional_options_description positional;
  o.add_to(options, positional);
  po::variables_map vm;
  if (!parse_command_line(args, options, positional,
                          "Checks a cluster's measurements against its design, layer by layer: "
                          "exit status 0 when all pass, 1 when a check fails.",
                          out, vm)) {
    return std::nullopt;
  }
  return o;
}

int run(const ClusterOptions& o, std::ostream& out) {
  const OutputFormat format = o.output_format();
  const calibrate::fit::CalibratedModel model = o.model();
  const calibrate::parse::ClusterEvidence evidence = o.evidence();
  const CheckReport report = calibrate::check::check_cluster(evidence, model, o.system);
  const std::string text = format == OutputFormat::kJson
                               ? json_report(report)
                               : text_report(report, o.output.empty() && colour_on(out));
  if (!o.report_dir.empty()) {
    report::write_report(o.report_dir, check_report_page(report, evidence));
  }
  o.write(text, out);
  return report.failed() ? 1 : 0;
}

}  // namespace

int run_check(const std::vector<std::string>& args, std::ostream& out) {
  return parse_and_run(args, out, parse_options, run);
}

}  // namespace railsim::tools
