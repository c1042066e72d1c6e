// File: tests/tools/report/bar_chart_test.cpp
// svg_bar_chart: one bar per finite value with heights in proportion, the reference line at its
// value, and "n/a" for a missing value.
#include "tools/report/bar_chart.hpp"

#include "tests/tools/report/svg_search.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace railsim::tools::report {
namespace {

using testing::elements;
using testing::number_attribute;

BarChart per_node() {
  BarChart chart;
  chart.title = "busbw per node";
  chart.category_title = "node";
  chart.value_label = "busbw";
  chart.value_unit = "GB/s";
  chart.bars = {{"n0", 10.0}, {"n1", 20.0}, {"n2", 30.0}};
  chart.reference = 25.0;
  chart.reference_label = "expected";
  return chart;
}

TEST(BarChart, BarHeightsAreProportionalToTheirValues) {
  const std::vector<std::string> bars = elements(svg_bar_chart(per_node()), "<rect class=\"bar\"");
  ASSERT_EQ(bars.size(), 3U);
  const double unit = number_attribute(bars[0], "height");  // the height of 10 GB/s
  EXPECT_NEAR(number_attribute(bars[1], "height"), 2.0 * unit, 0.02);
  EXPECT_NEAR(number_attribute(bars[2], "height"), 3.0 * unit, 0.02);
  // All bars stand on the same zero line, left to right.
  const double zero = number_attribute(bars[0], "y") + unit;
  EXPECT_NEAR(number_attribute(bars[2], "y") + number_attribute(bars[2], "height"), zero, 0.02);
  EXPECT_LT(number_attribute(bars[0], "x"), number_attribute(bars[1], "x"));
}

TEST(BarChart, TheReferenceLineSitsAtItsValue) {
  const std::string svg = svg_bar_chart(per_node());
  const std::vector<std::string> bars = elements(svg, "<rect class=\"bar\"");
  const std::vector<std::string> lines = elements(svg, "<line class=\"reference\"");
  ASSERT_EQ(bars.size(), 3U);
  ASSERT_EQ(lines.size(), 1U);
  // 25 GB/s is 2.5 times the 10 GB/s bar above the zero line.
  const double unit = number_attribute(bars[0], "height");
  const double zero = number_attribute(bars[0], "y") + unit;
  EXPECT_NEAR(number_attribute(lines[0], "y1"), zero - 2.5 * unit, 0.02);
  EXPECT_NE(svg.find(">expected 25</text>"), std::string::npos);
}

TEST(BarChart, AMissingValueHasNoBarAndReadsNotAvailable) {
  BarChart chart = per_node();
  chart.bars[1].value = NAN;
  chart.reference.reset();
  const std::string svg = svg_bar_chart(chart);
  EXPECT_EQ(elements(svg, "<rect class=\"bar\"").size(), 2U);
  EXPECT_NE(svg.find(">n/a</text>"), std::string::npos);
  EXPECT_TRUE(elements(svg, "<line class=\"reference\"").empty());
}

TEST(BarChart, EqualInputGivesEqualBytes) {
  EXPECT_EQ(svg_bar_chart(per_node()), svg_bar_chart(per_node()));
}

}  // namespace
}  // namespace railsim::tools::report
