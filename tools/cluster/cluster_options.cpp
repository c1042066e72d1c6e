// File: tools/cluster/cluster_options.cpp
#include "tools/cluster/cluster_options.hpp"

#include "models/scenario/system_file.hpp"
#include "tools/cli_support/output_checks.hpp"
#include "tools/cli_support/output_file.hpp"
#include "tools/cli_support/output_folder.hpp"
#include "tools/profile_option.hpp"
#include "tools/strict_option.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <optional>

namespace railsim::tools {

namespace po = boost::program_options;

void ClusterOptions::add_to(po::options_description& options,
                            po::positional_options_description& positional) {
  options.add_options()(
      "cluster", po::value(&cluster)->required(),
      "a manifest .json, or a directory of topo/, ibstat/, ibdev2netdev/, lspci/, "
      "perftest/, nccl/ logs (docs/acceptance.md)")("system", po::value(&system)->required(),
                                                    "the design: a node preset or a system file")(
      "profile", po::value(&profile),
      "a calibration profile (railsim calibrate -o) for the model's predictions")(
      "format", po::value(&format)->default_value("text"), "text or json")(
      "output,o", po::value(&output), "write the text to this file instead of stdout")(
      "report", po::value(&report_dir),
      "also write an HTML page (index.html and its SVG figures) into this folder");
  add_strict_option(options, strict);
  positional.add("cluster", 1);
}

OutputFormat ClusterOptions::output_format() const {
  return parse_format(format, std::array<Choice<OutputFormat>, 2>{
                                  {{"text", OutputFormat::kText}, {"json", OutputFormat::kJson}}});
}

calibrate::fit::CalibratedModel ClusterOptions::model() const {
  calibrate::fit::CalibratedModel model{models::scenario::system_from_argument(system).system, {}};
  if (const std::optional<LoadedProfile> loaded = load_profile(profile)) {
    apply_profile(*loaded, model.system, model.collective);
  }
  return model;
}

calibrate::parse::ClusterEvidence ClusterOptions::evidence() const {
  calibrate::parse::ClusterEvidence read = calibrate::parse::read_cluster_evidence(cluster, strict);
  for (const std::string& warning : read.warnings) {
    fmt::print(stderr, "railsim: warning: {}\n", warning);
  }
  std::vector<std::string> inputs = read.files();
  inputs.push_back(system);
  inputs.push_back(profile);
  check_output_file(output, "-o", inputs);
  check_output_folder(report_dir, {"index.html"}, "--report", inputs);
  return read;
}

void ClusterOptions::write(const std::string& text, std::ostream& out) const {
  if (output.empty()) {
    out << text;
  } else {
    write_output_file(output, text, "-o");
  }
}

}  // namespace railsim::tools
