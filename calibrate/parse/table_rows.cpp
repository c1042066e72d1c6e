// File: calibrate/parse/table_rows.cpp
#include "calibrate/parse/table_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace railsim::calibrate::parse {
namespace {

// What printf writes for a number that is not finite ("nan", "-nan", "inf"), in either case:
// a row that starts with one is a damaged row, to be refused, not chatter to be skipped.
bool is_non_finite(std::string_view word) {
  if (!word.empty() && (word.front() == '-' || word.front() == '+')) {
    word.remove_prefix(1);
  }
  std::string lower(word);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower == "nan" || lower == "inf" || lower == "infinity";
}

}  // namespace

bool is_row_candidate(const std::vector<std::string_view>& fields) {
  if (fields.empty()) {
    return false;
  }
  const std::string_view first = fields.front();
  const char c = first.front();
  const bool numeric_start = (c >= '0' && c <= '9') || c == '-' || c == '+';
  return (numeric_start || is_non_finite(first)) && first.find(':') == std::string_view::npos;
}

TableEnd read_table_rows(const TextInput& input,
                         int first,
                         const std::vector<std::string_view>& columns,
                         const std::function<bool(std::string_view)>& is_end,
                         const std::function<void(const TableRow&)>& on_row) {
  for (int number = first; number <= input.line_count(); ++number) {
    const Line line = line_of(input, number);
    if (is_end(line.text)) {
      return TableEnd{number, false};
    }
    TableRow row{line, split_fields(line.text)};
    if (!is_row_candidate(row.fields)) {
      continue;
    }
    if (row.fields.size() != columns.size()) {
      line.fail(fmt::format("expected a table row of {} columns ({}), got {}", columns.size(),
                            fmt::join(columns, " "), row.fields.size()));
    }
    on_row(row);
  }
  return TableEnd{input.line_count() + 1, true};
}

}  // namespace railsim::calibrate::parse
