// File: tests/tools/report/timeline_test.cpp
// svg_timeline: a bar per phase at its hand-computed pixels, highlighted bars outlined, a legend
// entry per category and one for the highlight, escaping, and well-formed XML.
#include "tools/report/timeline.hpp"

#include "tests/tools/report/svg_search.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace railsim::tools::report {
namespace {

using testing::count_of;
using testing::elements;
using testing::number_attribute;

// Two ranks: rank 0 computes 0-4 ms then all-reduces 4-8 ms with rank 1, which computes 0-2 ms
// and waits; the compute of rank 0 and the all-reduce are the critical path.
Timeline two_ranks() {
  Timeline t;
  t.title = "step <1>";
  t.rows = {"rank 0", "rank 1"};
  t.categories = {"compute", "all_reduce"};
  t.axis_label = "time";
  t.axis_unit = "ms";
  t.bars = {{0, 0.0, 4.0, 0, true, "fwd"},
            {1, 0.0, 2.0, 0, false, "fwd"},
            {0, 4.0, 8.0, 1, true, "dp"},
            {1, 4.0, 8.0, 1, true, "dp"}};
  return t;
}

TEST(Timeline, ABarPerPhaseWhereItRanOnItsRow) {
  const std::string svg = svg_timeline(two_ranks());
  const std::vector<std::string> bars = elements(svg, "<rect class=\"bar");
  ASSERT_EQ(bars.size(), 4U);
  // The axis runs 0-8 ms over the plot: rank 1's compute is a quarter of rank 0's all-reduce
  // width's double (2 ms against 4 ms), and starts where rank 0's compute starts.
  EXPECT_DOUBLE_EQ(number_attribute(bars[1], "x"), number_attribute(bars[0], "x"));
  EXPECT_NEAR(number_attribute(bars[0], "width"), 2.0 * number_attribute(bars[1], "width"), 0.01);
  EXPECT_NEAR(number_attribute(bars[2], "x"),
              number_attribute(bars[0], "x") + number_attribute(bars[0], "width"), 0.01);
  // Rows 16 px apart.
  EXPECT_DOUBLE_EQ(number_attribute(bars[1], "y") - number_attribute(bars[0], "y"), 16.0);
  EXPECT_EQ(count_of(svg, "class=\"bar highlighted\""), 3U);
  EXPECT_EQ(count_of(svg, "class=\"legend-entry\""), 3U);  // two categories, the critical path
  EXPECT_NE(svg.find(">step &lt;1&gt;</text>"), std::string::npos);
}

TEST(Timeline, IsWellFormedXml) {
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "xmllint not installed (Debian package libxml2-utils)";
  }
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / "railsim-timeline.svg";
  std::ofstream(file) << svg_timeline(two_ranks());
  EXPECT_EQ(std::system(("xmllint --noout '" + file.string() + "'").c_str()), 0);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace railsim::tools::report
