// File: tests/tools/report/report_page_test.cpp
// The report page and write_report: the files written, figures inlined byte for byte, names
// sanitised, text escaped, numeric cells right-aligned, errors naming the path, determinism.
#include "tools/report/report_page.hpp"

#include "tests/tools/report/report_fixture.hpp"
#include "tests/tools/report/svg_search.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

namespace railsim::tools::report {
namespace {

namespace fs = std::filesystem;
using testing::count_of;
using testing::read_file;
using testing::sample_report;
using testing::scratch_dir;

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

TEST(ReportPage, SanitisesNamesToLowerCaseLettersDigitsAndDashes) {
  EXPECT_EQ(sanitise_name("Busbw vs Size (8 GPUs)"), "busbw-vs-size-8-gpus");
  EXPECT_EQ(sanitise_name("  leaf0>spine1 / ECMP  "), "leaf0-spine1-ecmp");
  EXPECT_EQ(sanitise_name("../../etc/passwd"), "etc-passwd");
  EXPECT_EQ(sanitise_name("<>"), "figure");
  EXPECT_EQ(sanitise_name(""), "figure");
}

TEST(ReportPage, FigureStemsAreUnique) {
  // The first and third figures both sanitise to busbw-vs-size-8-gpus.
  EXPECT_EQ(figure_file_stems(sample_report()),
            (std::vector<std::string>{"busbw-vs-size-8-gpus", "link-utilisation",
                                      "busbw-vs-size-8-gpus-2"}));
  Report report("r");
  report.add_figure("index", "<svg/>", "");
  EXPECT_EQ(figure_file_stems(report), (std::vector<std::string>{"index-2"}));
}

TEST(ReportPage, WritesIndexAndEachFigureWithTheInlinedContent) {
  const fs::path dir = scratch_dir() / "out" / "nested";
  const Report report = sample_report();
  write_report(dir, report);
  EXPECT_EQ(names_in(dir),
            (std::set<std::string>{"index.html", "busbw-vs-size-8-gpus.svg", "link-utilisation.svg",
                                   "busbw-vs-size-8-gpus-2.svg"}));
  const std::string index = read_file(dir / "index.html");
  EXPECT_EQ(index, render_html(report));
  const std::vector<std::string> stems = figure_file_stems(report);
  std::size_t figure = 0;
  for (const Section& section : report.sections()) {
    if (const auto* f = std::get_if<Figure>(&section)) {
      const std::string file = read_file(dir / (stems[figure] + ".svg"));
      EXPECT_EQ(file, f->svg);
      EXPECT_NE(index.find(file), std::string::npos) << stems[figure];
      EXPECT_NE(index.find("href=\"" + stems[figure] + ".svg\""), std::string::npos);
      ++figure;
    }
  }
  EXPECT_EQ(figure, 3U);
  EXPECT_EQ(count_of(index, "<svg xmlns="), 3U);
}

TEST(ReportPage, EscapesEveryPieceOfText) {
  const std::string html = render_html(sample_report());
  EXPECT_NE(html.find("<title>Sweep: rails &amp; spines</title>"), std::string::npos);
  EXPECT_NE(html.find("<h1>Sweep: rails &amp; spines</h1>"), std::string::npos);
  EXPECT_NE(html.find("<p>Ring beats tree above 1 MiB; &quot;tree&quot; wins &lt;64 KiB.</p>"),
            std::string::npos);
  EXPECT_NE(html.find("busbw of &lt;ring&gt; &amp; tree"), std::string::npos);
  EXPECT_NE(html.find("<td>rails &amp; 1:1</td>"), std::string::npos);
  EXPECT_NE(html.find("<h3>Design points</h3>"), std::string::npos);
  EXPECT_EQ(html.find("<ring>"), std::string::npos);
  EXPECT_NE(html.find("<style>"), std::string::npos);
}

TEST(ReportPage, NumericCellsAreRightAligned) {
  EXPECT_TRUE(is_numeric_cell("182.3"));
  EXPECT_TRUE(is_numeric_cell("-4"));
  EXPECT_TRUE(is_numeric_cell("1.5e9"));
  EXPECT_TRUE(is_numeric_cell("97%"));
  EXPECT_TRUE(is_numeric_cell("120 GB/s"));
  EXPECT_FALSE(is_numeric_cell("n/a"));
  EXPECT_FALSE(is_numeric_cell("2 spines, ECMP"));
  EXPECT_FALSE(is_numeric_cell(""));
  const std::string html = html_table(
      {.header = {"design", "busbw (GB/s)"}, .rows = {{"ring", "182.3"}, {"tree", "120 GB/s"}}});
  EXPECT_NE(html.find("<td class=\"num\">182.3</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">120 GB/s</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>ring</td>"), std::string::npos);
  EXPECT_NE(html.find("<th class=\"num\">busbw (GB/s)</th>"), std::string::npos);
  EXPECT_NE(html.find("<th>design</th>"), std::string::npos);
}

TEST(ReportPage, RowsCarryTheirClassSoThatFailuresAreColouredAndPathsBreak) {
  const std::string html = html_table({.header = {"verdict", "check"},
                                       .rows = {{"pass", "a"}, {"FAIL", "b"}, {"pass", "c"}},
                                       .row_classes = {"", "fail"}});
  EXPECT_NE(html.find("<tr><td>pass</td><td>a</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"fail\"><td>FAIL</td><td>b</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>pass</td><td>c</td></tr>"), std::string::npos);
  // A path breaks after its slashes; a phrase with a slash in it is left to the browser.
  const std::string paths = html_table({.rows = {{"perftest/n0.txt:13", "24 GB/s"}}});
  EXPECT_NE(paths.find("<td>perftest/<wbr/>n0.txt:13</td>"), std::string::npos);
  EXPECT_NE(paths.find(">24 GB/s</td>"), std::string::npos);
  Report page("check");
  EXPECT_NE(render_html(page).find("tr.fail td{background:"), std::string::npos);
}

TEST(ReportPage, AnUncreatableDirectoryThrowsInputErrorNamingIt) {
  // A regular file where a folder is needed cannot be created over, even by root.
  const fs::path blocker = scratch_dir() / "blocker";
  { std::ofstream(blocker) << "x"; }
  const fs::path dir = blocker / "report";
  try {
    write_report(dir, sample_report());
    FAIL() << "expected sim::InputError";
  } catch (const sim::InputError& error) {
    EXPECT_NE(std::string(error.what()).find(dir.string()), std::string::npos) << error.what();
  }
}

TEST(ReportPage, AFailedWriteThrowsNamingTheFileAndLeavesNoTemporary) {
  // A folder named index.html: the finished temporary file cannot be renamed over it.
  const fs::path dir = scratch_dir();
  fs::create_directory(dir / "index.html");
  try {
    write_report(dir, sample_report());
    FAIL() << "expected sim::InputError";
  } catch (const sim::InputError& error) {
    EXPECT_NE(std::string(error.what()).find((dir / "index.html").string()), std::string::npos)
        << error.what();
  }
  for (const std::string& name : names_in(dir)) {
    EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
  }
  EXPECT_TRUE(fs::is_directory(dir / "index.html"));
}

TEST(ReportPage, EqualReportsGiveByteIdenticalFiles) {
  const fs::path root = scratch_dir();
  write_report(root / "a", sample_report());
  write_report(root / "b", sample_report());
  const std::set<std::string> names = names_in(root / "a");
  ASSERT_EQ(names, names_in(root / "b"));
  for (const std::string& name : names) {
    EXPECT_EQ(read_file(root / "a" / name), read_file(root / "b" / name)) << name;
  }
}

TEST(ReportPage, RewritingAReportReplacesItsFiles) {
  const fs::path dir = scratch_dir();
  write_report(dir, Report("first"));
  write_report(dir, Report("second"));
  EXPECT_NE(read_file(dir / "index.html").find("<h1>second</h1>"), std::string::npos);
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"index.html"}));
}

}  // namespace
}  // namespace railsim::tools::report
