// File: tools/cli_support/output_file.hpp
// Writing a command's output file all or nothing: the text goes to PATH.tmp, which is renamed
// over PATH only once it is complete, so an error never leaves a partial file behind.
#pragma once

#include <string>

namespace railsim::tools {

// Throws sim::InputError naming `option` and the path when the file cannot be written.
void write_output_file(const std::string& path, const std::string& text, const char* option);

}  // namespace railsim::tools
