// File: tools/max_memory_option.hpp
// `--max-memory SIZE` on the commands that can be asked for more work than a machine holds
// (`step`, `sweep`): the ceiling of models/workload/work_limit.hpp, which the readers check their
// estimates against before they build anything.
#pragma once

#include "models/workload/work_limit.hpp"

#include <string>

namespace railsim::tools {

// The option's help text, with the default.
std::string max_memory_help();

// "16G", "512M", "8GiB" (sizes as -b reads them; at least 1 MiB); an InputError naming the option
// otherwise.
models::WorkLimit parse_max_memory(const std::string& text);

}  // namespace railsim::tools
