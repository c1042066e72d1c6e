// File: tests/tools/report/line_chart_test.cpp
// svg_line_chart: a standalone document, one legend entry and one marker per series and point,
// lines broken at NaN, points drawn in x order, markers at their hand-computed pixels, escaping.
#include "tools/report/line_chart.hpp"

#include "tests/tools/report/svg_search.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace railsim::tools::report {
namespace {

using testing::count_of;
using testing::elements;
using testing::number_attribute;

LineChart two_series_chart() {
  LineChart chart;
  chart.title = "AllReduce busbw";
  chart.x = {.label = "message size",
             .unit = "B",
             .scale = AxisScale::kLog2,
             .format = TickFormat::kBytes};
  chart.y = {.label = "busbw", .unit = "GB/s", .include_zero = true};
  chart.series = {{"ring", {{1024, 2.0}, {1048576, 60.0}, {1073741824, 180.0}}},
                  {"tree", {{1024, 3.0}, {32768, 20.0}, {1048576, 55.0}, {1073741824, 170.0}}}};
  return chart;
}

TEST(LineChart, IsAStandaloneSvgDocument) {
  const std::string svg = svg_line_chart(two_series_chart());
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0U);
  EXPECT_NE(svg.find("width=\"720\" height=\"420\" viewBox=\"0 0 720 420\""), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_NE(svg.find(">AllReduce busbw</text>"), std::string::npos);
  EXPECT_NE(svg.find(">busbw (GB/s)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">message size (B)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1 MiB</text>"), std::string::npos);
}

TEST(LineChart, TwoSeriesGiveTwoLegendEntriesAndAMarkerPerPoint) {
  const std::string svg = svg_line_chart(two_series_chart());
  EXPECT_EQ(count_of(svg, "class=\"legend-entry\""), 2U);
  EXPECT_EQ(count_of(svg, "class=\"marker\""), 3U + 4U);
  EXPECT_EQ(count_of(svg, "class=\"line\""), 2U);
  EXPECT_NE(svg.find(">ring</text>"), std::string::npos);
  EXPECT_NE(svg.find(">tree</text>"), std::string::npos);
}

TEST(LineChart, AScatterHasMarkersWithoutLinesAndAReferenceLineNoMarkers) {
  LineChart chart = two_series_chart();
  chart.series[0].line = false;     // ring: 3 markers, no line
  chart.series[1].markers = false;  // tree: a line, no marker
  const std::string svg = svg_line_chart(chart);
  EXPECT_EQ(count_of(svg, "class=\"marker\""), 3U);
  EXPECT_EQ(count_of(svg, "class=\"line\""), 1U);
  // The legend shows each as drawn: ring's marker alone, tree's line alone.
  const std::string legend = svg.substr(svg.find("<g class=\"legend\">"));
  EXPECT_EQ(count_of(legend, "class=\"legend-marker\""), 1U);
  EXPECT_EQ(count_of(legend, "<line "), 1U);
}

TEST(LineChart, ALegendTooWideForTheSideGoesBelowAndTheDocumentGrows) {
  LineChart chart = two_series_chart();
  chart.series[1].name = std::string(80, 'w');  // far wider than 720 / 3 px at 12 px
  const std::string svg = svg_line_chart(chart);
  // Two rows of 18 px and 8 px of margin below the 420 px chart; the plot keeps the full width
  // (its right edge where the legend would otherwise start), and the entries start at its left.
  EXPECT_NE(svg.find("width=\"720\" height=\"464\" viewBox=\"0 0 720 464\""), std::string::npos);
  EXPECT_DOUBLE_EQ(line_chart_plot_area(chart).right, 720.0 - 16.0);
}

TEST(LineChart, SeriesHaveDistinctColoursAndMarkerShapes) {
  const std::string svg = svg_line_chart(two_series_chart());
  const std::vector<std::string> lines = elements(svg, "<polyline class=\"line\"");
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_NE(testing::attribute(lines[0], "stroke"), testing::attribute(lines[1], "stroke"));
  // The first series draws circles, the second another shape (paths).
  EXPECT_EQ(elements(svg, "<circle class=\"marker\"").size(), 3U);
  EXPECT_EQ(elements(svg, "<path class=\"marker\"").size(), 4U);
}

TEST(LineChart, ANanBreaksTheLineAndHasNoMarker) {
  LineChart chart;
  chart.series = {{"s", {{1, 1.0}, {2, 2.0}, {3, NAN}, {4, 4.0}, {5, 5.0}}}};
  const std::string svg = svg_line_chart(chart);
  const std::vector<std::string> lines = elements(svg, "<polyline class=\"line\"");
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(count_of(testing::attribute(lines[0], "points"), ","), 2U);  // (1, 1) and (2, 2)
  EXPECT_EQ(count_of(testing::attribute(lines[1], "points"), ","), 2U);  // (4, 4) and (5, 5)
  EXPECT_EQ(count_of(svg, "class=\"marker\""), 4U);
}

TEST(LineChart, ALonePointBetweenGapsHasAMarkerButNoLine) {
  LineChart chart;
  chart.series = {{"s", {{1, NAN}, {2, 2.0}, {3, NAN}}}};
  const std::string svg = svg_line_chart(chart);
  EXPECT_EQ(count_of(svg, "class=\"line\""), 0U);
  EXPECT_EQ(count_of(svg, "class=\"marker\""), 1U);
}

TEST(LineChart, NonPositiveValuesAreGapsOnALogAxis) {
  LineChart chart;
  chart.x.scale = AxisScale::kLog10;
  chart.series = {{"s", {{0, 1.0}, {10, 2.0}, {100, 3.0}}}};
  const std::string svg = svg_line_chart(chart);
  EXPECT_EQ(count_of(svg, "class=\"marker\""), 2U);
}

TEST(LineChart, PointsAreDrawnInXOrder) {
  LineChart chart;
  chart.series = {{"s", {{3, 1.0}, {1, 2.0}, {2, 3.0}}}};
  const std::string svg = svg_line_chart(chart);
  const std::vector<std::string> markers = elements(svg, "<circle class=\"marker\"");
  ASSERT_EQ(markers.size(), 3U);
  EXPECT_LT(number_attribute(markers[0], "cx"), number_attribute(markers[1], "cx"));
  EXPECT_LT(number_attribute(markers[1], "cx"), number_attribute(markers[2], "cx"));
  // x = 1 carries y = 2, which on the 1..3 y axis (ticks 1, 1.5, ..., 3) sits halfway.
  const PlotArea area = line_chart_plot_area(chart);
  EXPECT_NEAR(number_attribute(markers[0], "cy"), (area.top + area.bottom) / 2.0, 0.01);
}

TEST(LineChart, AKnownPointLandsOnItsHandComputedPixel) {
  // x and y data 0..7.3 give the ticks 0, 2, ..., 8 on both axes; (2, 3) then lies 2/8 of the
  // way across the plot area and 3/8 of the way up.
  LineChart chart;
  chart.series = {{"s", {{0, 0}, {2, 3}, {7.3, 7.3}}}};
  const PlotArea area = line_chart_plot_area(chart);
  EXPECT_EQ(line_chart_x_ticks(chart).hi, 8.0);
  EXPECT_EQ(line_chart_y_ticks(chart).hi, 8.0);
  const std::vector<std::string> markers =
      elements(svg_line_chart(chart), "<circle class=\"marker\"");
  ASSERT_EQ(markers.size(), 3U);
  EXPECT_NEAR(number_attribute(markers[1], "cx"), area.left + 0.25 * area.width(), 0.01);
  EXPECT_NEAR(number_attribute(markers[1], "cy"), area.bottom - 0.375 * area.height(), 0.01);
  // The origin is the plot area's bottom-left corner.
  EXPECT_NEAR(number_attribute(markers[0], "cx"), area.left, 0.01);
  EXPECT_NEAR(number_attribute(markers[0], "cy"), area.bottom, 0.01);
}

TEST(LineChart, EscapesTitleLabelsAndSeriesNames) {
  LineChart chart;
  chart.title = "a<b & \"c\" 'd'";
  chart.x.label = "x<1>";
  chart.series = {{"s&t", {{1, 1}}}};
  const std::string svg = svg_line_chart(chart);
  EXPECT_NE(svg.find("<title>a&lt;b &amp; &quot;c&quot; &#39;d&#39;</title>"), std::string::npos);
  EXPECT_NE(svg.find(">x&lt;1&gt;</text>"), std::string::npos);
  EXPECT_NE(svg.find(">s&amp;t</text>"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
  EXPECT_EQ(svg.find("s&t"), std::string::npos);
}

TEST(LineChart, AChartWithoutPointsSaysNoData) {
  LineChart chart;
  chart.series = {{"empty", {}}};
  const std::string svg = svg_line_chart(chart);
  EXPECT_NE(svg.find(">no data</text>"), std::string::npos);
  EXPECT_EQ(count_of(svg, "class=\"marker\""), 0U);
}

TEST(LineChart, EqualInputGivesEqualBytes) {
  EXPECT_EQ(svg_line_chart(two_series_chart()), svg_line_chart(two_series_chart()));
}

}  // namespace
}  // namespace railsim::tools::report
