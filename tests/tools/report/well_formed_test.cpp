// File: tests/tools/report/well_formed_test.cpp
// Every file write_report produces is well-formed XML, as `xmllint --noout` (libxml2-utils)
// judges it; skipped where xmllint is not installed.
#include "tests/tools/report/report_fixture.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace railsim::tools::report {
namespace {

TEST(WellFormed, EveryWrittenFilePassesXmllint) {
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "xmllint not installed (Debian package libxml2-utils)";
  }
  const std::filesystem::path dir = testing::scratch_dir();
  write_report(dir, testing::sample_report());
  std::size_t files = 0;
  for (const std::filesystem::directory_entry& entry : std::filesystem::directory_iterator(dir)) {
    const std::string command = "xmllint --noout '" + entry.path().string() + "'";
    EXPECT_EQ(std::system(command.c_str()), 0) << entry.path();
    ++files;
  }
  EXPECT_EQ(files, 4U);
}

TEST(WellFormed, AManyRowHeatmapPassesXmllint) {
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "xmllint not installed (Debian package libxml2-utils)";
  }
  Heatmap map;
  map.title = "512 links";
  map.column_labels = {"t0", "t1"};
  for (int r = 0; r < 512; ++r) {
    map.row_labels.push_back("leaf" + std::to_string(r / 8) + ">spine" + std::to_string(r % 8));
    map.values.push_back({r % 7 == 0 ? NAN : r * 1.0, 512.0 - r});
  }
  Report report("heatmap");
  report.add_figure("links", svg_heatmap(map), "");
  const std::filesystem::path dir = testing::scratch_dir();
  write_report(dir, report);
  EXPECT_EQ(std::system(("xmllint --noout '" + (dir / "links.svg").string() + "'").c_str()), 0);
}

}  // namespace
}  // namespace railsim::tools::report
