// File: tools/cli_support/csv_row.hpp
// One way to write CSV (RFC 4180) for every command that prints it: a field holding a comma, a
// quote or a line break is quoted, its quotes doubled, so names and paths with commas (a CPU
// list, a system file "a,b.json") stay one field.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railsim::tools {

// `text` as one CSV field.
std::string csv_field(std::string_view text);

// The fields joined by commas, each as csv_field writes it, with the line's end.
std::string csv_row(const std::vector<std::string>& fields);

}  // namespace railsim::tools
