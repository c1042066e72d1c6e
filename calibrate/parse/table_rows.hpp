// File: calibrate/parse/table_rows.hpp
// The one table reader that perftest's and nccl-tests' result tables share: rows of
// white-space-separated fields under a header, with the tools' chatter in between (perftest's
// "Conflicting CPU frequency" warnings, NCCL INFO/WARN lines), up to a line that ends the table.
#pragma once

#include "calibrate/parse/fields.hpp"

#include <functional>
#include <string_view>
#include <vector>

namespace railsim::calibrate::parse {

struct TableRow {
  Line line;
  std::vector<std::string_view> fields;  // exactly as many as the table has columns
};

// Whether a line's fields make it a row: its first field starts with a digit or a sign, or is
// "nan" or "inf" as printf writes them (a damaged row, which must fail rather than vanish), and
// holds no ':' (NCCL debug lines start "host:pid:tid", so they never count as rows).
bool is_row_candidate(const std::vector<std::string_view>& fields);

struct TableEnd {
  int next_line = 0;       // the line that ended the table, or line_count() + 1
  bool truncated = false;  // the input ended before a line that ends the table
};

// Reads the rows from line `first` on, until a line for which `is_end` holds (not consumed) or
// the end of the input. A row candidate must have exactly `columns.size()` fields, else the
// read fails naming the columns. Any other line is chatter and skipped: it cannot be a damaged
// row, since a row is recognised by its start.
TableEnd read_table_rows(const TextInput& input,
                         int first,
                         const std::vector<std::string_view>& columns,
                         const std::function<bool(std::string_view)>& is_end,
                         const std::function<void(const TableRow&)>& on_row);

}  // namespace railsim::calibrate::parse
