// File: tools/report/html_table.hpp
// html_table: a table of strings (a header row, then rows) as an HTML <table>, every cell
// escaped, a path free to break after its slashes; numeric cells ("182.3", "-4", "1.5e9", "97 %",
// "182.3 GB/s") are right-aligned, and so is the header of a column whose cells are all numeric.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railsim::tools::report {

struct Table {
  std::string caption{};  // empty: none
  std::vector<std::string> header{};
  std::vector<std::vector<std::string>> rows{};  // rows may be shorter than the header
  // A class per row ("fail": a failed check, drawn in red by the report's style); rows beyond
  // it, or given "", have none.
  std::vector<std::string> row_classes{};
};

// A number, optionally signed, then nothing, a '%' or 'x', or one space and a single word (its
// unit): "12", "-0.5", "1e9", "97%", "1.8x", "182.3 GB/s". Not "n/a", "2 spines, ECMP", "".
[[nodiscard]] bool is_numeric_cell(std::string_view text);

// The <table> element; numeric cells have class "num", rows their row_classes.
[[nodiscard]] std::string html_table(const Table& table);

}  // namespace railsim::tools::report
