// File: tools/max_memory_option.hpp
// `--max-memory SIZE` on the commands that can be asked for more work than a machine holds
// (`step`, `sweep`, `collective`, `run`, `compare`, `topo`): the ceiling of
// models/workload/work_limit.hpp, which the readers check their estimates against before they
// build anything.
#pragma once

#include "models/workload/work_limit.hpp"

#include <boost/program_options.hpp>

#include <string>

namespace railsim::tools {

// Adds --max-memory to `options`: when given, parsing sets `limit` from it ("16G", "512M",
// "8GiB": sizes as -b reads them; at least 1 MiB), or throws an InputError naming the option.
// `scope` ends the help text ("for each point").
void add_max_memory_option(boost::program_options::options_description& options,
                           models::WorkLimit& limit,
                           const std::string& scope = "");

}  // namespace railsim::tools
