// File: tools/cluster/cluster_options.hpp
// The options `railsim check` and `railsim diagnose` share: the cluster's measurements, the
// design (and a profile) to judge them by, the output format, where the text goes, and the
// folder of the HTML page.
#pragma once

#include "calibrate/fit/model_parameters.hpp"
#include "calibrate/parse/cluster_evidence.hpp"
#include "tools/cli_support/output_format.hpp"

#include <boost/program_options.hpp>

#include <ostream>
#include <string>

namespace railsim::tools {

struct ClusterOptions {
  std::string cluster;
  std::string system;
  std::string profile;
  std::string format;
  std::string output;
  std::string report_dir;
  bool strict = false;  // an implausible reading is an error, not a warning

  // Adds CLUSTER (positional), --system, --profile, --format, -o, --report and --strict.
  void add_to(boost::program_options::options_description& options,
              boost::program_options::positional_options_description& positional);

  // --format: text or json; an InputError for another.
  OutputFormat output_format() const;

  // The design with the profile's parameters set; an InputError for a bad design or profile.
  calibrate::fit::CalibratedModel model() const;

  // The cluster's measurements, their warnings printed on stderr; an InputError for a bad one,
  // or for -o or --report where they cannot be written or would overwrite an input.
  calibrate::parse::ClusterEvidence evidence() const;

  // The text to -o's file, or to `out` without -o.
  void write(const std::string& text, std::ostream& out) const;
};

}  // namespace railsim::tools
