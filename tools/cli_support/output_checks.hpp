// File: tools/cli_support/output_checks.hpp
// What a command checks about where it will write before it does any work, so that an output
// it cannot write is an error in milliseconds rather than after a sweep of an hour, and so that
// no output ever overwrites an input of the same run (`run S.json --trace S.json`).
#pragma once

#include <string>
#include <vector>

namespace railsim::tools {

// Throws sim::InputError naming `option`, `output` and the input when `output` is the same file
// as one of `inputs` (also through a link or another spelling of the path).
void check_not_an_input(const std::string& output,
                        const char* option,
                        const std::vector<std::string>& inputs);

// Throws sim::InputError naming `option` and `path` unless a file can be written at `path`
// (write_output_file): not a folder, not one of `inputs`, in a folder where a file can be
// created. An empty path (the option not given) passes.
void check_output_file(const std::string& path,
                       const char* option,
                       const std::vector<std::string>& inputs);

}  // namespace railsim::tools
