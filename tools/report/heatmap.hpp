// File: tools/report/heatmap.hpp
// svg_heatmap: a matrix of values as coloured cells (links x time bins, node x node RDMA
// bandwidth) with row and column labels, a sequential colour scale (viridis) and its labelled
// legend bar. Cells without data are grey and hatched. Stays readable with many rows: the cell
// height shrinks to 2 px and only every 2nd, 5th, 10th ... label is written.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace railsim::tools::report {

// A matrix description. values[r][c] belongs to row_labels[r] and column_labels[c]; NaN (or a
// missing entry of a short row) is "no data". The scale runs from the smallest to the largest
// finite value unless scale_min / scale_max fix its ends (values beyond them take the end colour).
struct Heatmap {
  std::string title;
  std::vector<std::string> row_labels;
  std::vector<std::string> column_labels;
  std::vector<std::vector<double>> values;
  std::string row_title;     // "link"
  std::string column_title;  // "time (ms)"
  std::string value_label;   // "utilisation"
  std::string value_unit;    // "%"
  std::optional<double> scale_min;
  std::optional<double> scale_max;
  double width = 720.0;  // px; the height follows from the number of rows
};

// Where the cells go and which labels are written.
struct HeatmapLayout {
  std::size_t rows = 0;
  std::size_t columns = 0;
  double left = 0.0;  // of the first column, px
  double top = 0.0;   // of the first row, px
  double cell_width = 0.0;
  double cell_height = 0.0;             // 2 to 28 px
  std::size_t row_label_stride = 1;     // a label for every this many rows (1, 2, 5, 10, ...)
  std::size_t column_label_stride = 1;  // likewise for columns
  bool values_shown = false;            // cells large enough to print their value
  double height = 0.0;                  // of the whole document, px
};

[[nodiscard]] HeatmapLayout heatmap_layout(const Heatmap& map);

// The two ends of the colour scale: value -> sequential_colour((value - lo) / (hi - lo)).
struct ColourRange {
  double lo = 0.0;
  double hi = 1.0;
};

[[nodiscard]] ColourRange heatmap_range(const Heatmap& map);

// The SVG document. Each cell is a <rect class="cell ..."> in row-major order (class
// "cell no-data" for NaN), with a <title> tooltip while the matrix has at most 10,000 cells.
[[nodiscard]] std::string svg_heatmap(const Heatmap& map);

}  // namespace railsim::tools::report
