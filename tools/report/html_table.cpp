// File: tools/report/html_table.cpp
#include "tools/report/html_table.hpp"

#include "tools/report/xml_escape.hpp"

#include <fmt/format.h>

#include <charconv>

namespace railsim::tools::report {
namespace {

// Whether every non-empty cell of column `c` is numeric (and there is at least one).
bool numeric_column(const Table& table, std::size_t c) {
  bool any = false;
  for (const std::vector<std::string>& row : table.rows) {
    if (c >= row.size() || row[c].empty()) {
      continue;
    }
    if (!is_numeric_cell(row[c])) {
      return false;
    }
    any = true;
  }
  return any;
}

std::string cell(std::string_view tag, std::string_view text, bool numeric) {
  return fmt::format("<{0}{1}>{2}</{0}>", tag, numeric ? " class=\"num\"" : "", xml_escape(text));
}

}  // namespace

bool is_numeric_cell(std::string_view text) {
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    text.remove_prefix(1);
  }
  if (text.empty() || text.front() < '0' || text.front() > '9') {
    return false;
  }
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc()) {
    return false;
  }
  const std::string_view rest(end, static_cast<std::size_t>(text.data() + text.size() - end));
  if (rest.empty() || rest == "%" || rest == "x") {
    return true;
  }
  return rest.size() >= 2 && rest.front() == ' ' && rest.find(' ', 1) == std::string_view::npos;
}

std::string html_table(const Table& table) {
  std::string out = "<table>\n";
  if (!table.caption.empty()) {
    out += fmt::format("<caption>{}</caption>\n", xml_escape(table.caption));
  }
  if (!table.header.empty()) {
    out += "<thead><tr>";
    for (std::size_t c = 0; c < table.header.size(); ++c) {
      out += cell("th", table.header[c], numeric_column(table, c));
    }
    out += "</tr></thead>\n";
  }
  out += "<tbody>\n";
  for (const std::vector<std::string>& row : table.rows) {
    out += "<tr>";
    for (const std::string& text : row) {
      out += cell("td", text, is_numeric_cell(text));
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
  return out;
}

}  // namespace railsim::tools::report
