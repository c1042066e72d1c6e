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

// A path (a cell of one word with slashes in it) may break after each slash, so that a log's
// path wraps in its column rather than pushing the table past the page.
std::string cell_text(std::string_view text) {
  std::string escaped = xml_escape(text);
  if (text.find(' ') != std::string_view::npos || text.find('/') == std::string_view::npos) {
    return escaped;
  }
  std::string out;
  for (const char c : escaped) {
    out += c;
    if (c == '/') {
      out += "<wbr/>";
    }
  }
  return out;
}

std::string cell(std::string_view tag, std::string_view text, bool numeric) {
  return fmt::format("<{0}{1}>{2}</{0}>", tag, numeric ? " class=\"num\"" : "", cell_text(text));
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
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const std::vector<std::string>& row = table.rows[r];
    const bool classed = r < table.row_classes.size() && !table.row_classes[r].empty();
    out += classed ? fmt::format("<tr class=\"{}\">", xml_escape(table.row_classes[r])) : "<tr>";
    for (const std::string& text : row) {
      out += cell("td", text, is_numeric_cell(text));
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
  return out;
}

}  // namespace railsim::tools::report
