// File: tools/cli_support/csv_row.cpp
#include "tools/cli_support/csv_row.hpp"

#include <cstddef>

namespace railsim::tools {

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(text);
  }
  std::string out = "\"";
  for (const char c : text) {
    out += c == '"' ? std::string_view("\"\"") : std::string_view(&c, 1);
  }
  return out + "\"";
}

std::string csv_row(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) {
      line += ',';
    }
    line += csv_field(fields[i]);
  }
  return line + "\n";
}

}  // namespace railsim::tools
