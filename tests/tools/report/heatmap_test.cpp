// File: tests/tools/report/heatmap_test.cpp
// svg_heatmap: the colours of the scale's ends, "no data" cells, fixed scale ends, values in
// large cells, and a 512-row matrix that shrinks its cells and thins its labels.
#include "tools/report/heatmap.hpp"

#include "tests/tools/report/svg_search.hpp"

#include "tools/report/colours.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>

namespace railsim::tools::report {
namespace {

using testing::attribute;
using testing::count_of;
using testing::elements;

Heatmap two_by_two() {
  Heatmap map;
  map.title = "RDMA write bandwidth";
  map.row_labels = {"node0", "node1"};
  map.column_labels = {"node0", "node1"};
  map.values = {{0.0, 5.0}, {NAN, 10.0}};
  map.value_label = "bandwidth";
  map.value_unit = "GB/s";
  return map;
}

TEST(Heatmap, ScaleEndsAreViridisEnds) {
  // matplotlib's viridis starts at #440154 and ends at #fde725.
  EXPECT_EQ(sequential_colour(0.0), "#440154");
  EXPECT_EQ(sequential_colour(1.0), "#fde725");
  EXPECT_EQ(sequential_colour(-1.0), "#440154");
  EXPECT_EQ(sequential_colour(2.0), "#fde725");
}

TEST(Heatmap, MinAndMaxCellsTakeTheScaleEnds) {
  const std::vector<std::string> cells = elements(svg_heatmap(two_by_two()), "<rect class=\"cell");
  ASSERT_EQ(cells.size(), 4U);                        // row-major: (0,0) (0,1) (1,0) (1,1)
  EXPECT_EQ(attribute(cells[0], "fill"), "#440154");  // 0, the minimum
  EXPECT_EQ(attribute(cells[1], "fill"), sequential_colour(0.5));  // 5, halfway
  EXPECT_EQ(attribute(cells[3], "fill"), "#fde725");               // 10, the maximum
}

TEST(Heatmap, NanCellsAreGreyNoDataAndTheLegendSaysSo) {
  const std::string svg = svg_heatmap(two_by_two());
  const std::vector<std::string> cells = elements(svg, "<rect class=\"cell");
  ASSERT_EQ(cells.size(), 4U);
  EXPECT_EQ(attribute(cells[2], "class"), "cell no-data");
  EXPECT_EQ(attribute(cells[2], "fill"), "#d9d9d9");
  EXPECT_EQ(count_of(svg, "class=\"cell no-data\""), 1U);
  EXPECT_EQ(count_of(svg, "class=\"no-data-swatch\""), 1U);  // in the legend
  EXPECT_NE(svg.find(">no data</text>"), std::string::npos);
  EXPECT_NE(svg.find("<title>node1, node0: no data</title>"), std::string::npos);
}

TEST(Heatmap, FixedScaleEndsSetTheColours) {
  Heatmap map = two_by_two();
  map.scale_min = 0.0;
  map.scale_max = 20.0;
  const std::vector<std::string> cells = elements(svg_heatmap(map), "<rect class=\"cell");
  ASSERT_EQ(cells.size(), 4U);
  EXPECT_EQ(attribute(cells[3], "fill"), sequential_colour(0.5));  // 10 of 0..20
}

TEST(Heatmap, LargeCellsShowTheirValueAndTheLegendItsEnds) {
  const Heatmap map = two_by_two();
  const HeatmapLayout layout = heatmap_layout(map);
  EXPECT_TRUE(layout.values_shown);
  const std::string svg = svg_heatmap(map);
  EXPECT_NE(svg.find(">5</text>"), std::string::npos);
  EXPECT_NE(svg.find(">10</text>"), std::string::npos);
  EXPECT_NE(svg.find(">bandwidth (GB/s)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">RDMA write bandwidth</text>"), std::string::npos);
}

TEST(Heatmap, FiveHundredTwelveRowsShrinkCellsAndThinLabels) {
  Heatmap map;
  map.column_labels = {"0 ms", "1 ms", "2 ms", "3 ms"};
  for (int r = 0; r < 512; ++r) {
    map.row_labels.push_back("link-" + std::to_string(r));
    map.values.push_back({0.1 * r, 0.2 * r, 0.3 * r, 0.4 * r});
  }
  const HeatmapLayout layout = heatmap_layout(map);
  EXPECT_EQ(layout.rows, 512U);
  EXPECT_EQ(layout.cell_height, 2.0);
  EXPECT_FALSE(layout.values_shown);
  // 10 px labels need 12 px; at 2 px a row that is 6 rows, rounded up to a stride of 10:
  // rows 0, 10, ..., 510 are labelled.
  EXPECT_EQ(layout.row_label_stride, 10U);
  const std::string svg = svg_heatmap(map);
  const std::regex label(">link-[0-9]+</text>");
  const auto labels =
      std::distance(std::sregex_iterator(svg.begin(), svg.end(), label), std::sregex_iterator());
  EXPECT_EQ(labels, 52);
  EXPECT_NE(svg.find(">link-510</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">link-511</text>"), std::string::npos);
  EXPECT_EQ(count_of(svg, "<rect class=\"cell\""), 512U * 4U);
  EXPECT_LT(layout.height, 1200.0);
}

TEST(Heatmap, EscapesLabels) {
  Heatmap map = two_by_two();
  map.row_labels[0] = "leaf<0>";
  const std::string svg = svg_heatmap(map);
  EXPECT_NE(svg.find(">leaf&lt;0&gt;</text>"), std::string::npos);
  EXPECT_EQ(svg.find("leaf<0>"), std::string::npos);
}

TEST(Heatmap, EqualInputGivesEqualBytes) {
  EXPECT_EQ(svg_heatmap(two_by_two()), svg_heatmap(two_by_two()));
}

}  // namespace
}  // namespace railsim::tools::report
