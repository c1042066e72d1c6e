// File: tests/tools/report/report_fixture.hpp
// A report with one figure of each kind and a table, a fresh scratch folder per test, and file
// reading, shared by the page tests and the well-formedness tests.
#pragma once

#include "tools/report/bar_chart.hpp"
#include "tools/report/heatmap.hpp"
#include "tools/report/line_chart.hpp"
#include "tools/report/report_page.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace railsim::tools::report::testing {

inline Report sample_report() {
  LineChart line;
  line.title = "AllReduce busbw <8 GPUs & 2 nodes>";
  line.x = {.label = "message size",
            .unit = "B",
            .scale = AxisScale::kLog2,
            .format = TickFormat::kBytes};
  line.y = {.label = "busbw", .unit = "GB/s", .include_zero = true};
  line.series = {{"ring", {{8, 0.01}, {1048576, 60.0}, {8589934592.0, 182.0}}},
                 {"tree \"ll128\"", {{8, 0.02}, {1048576, NAN}, {8589934592.0, 170.0}}}};
  Heatmap heat;
  heat.title = "link utilisation";
  heat.row_labels = {"leaf0>spine0", "leaf0>spine1"};
  heat.column_labels = {"0 ms", "1 ms", "2 ms"};
  heat.values = {{0.1, 0.5, NAN}, {0.9, 1.0, 0.0}};
  heat.value_unit = "fraction";
  BarChart bars;
  bars.title = "busbw per node";
  bars.bars = {{"n0", 180.0}, {"n1", 120.0}};
  bars.reference = 182.0;
  bars.reference_label = "expected";

  Report report("Sweep: rails & spines");
  report.add_heading("Results")
      .add_paragraph("Ring beats tree above 1 MiB; \"tree\" wins <64 KiB.")
      .add_figure("Busbw vs Size (8 GPUs)", svg_line_chart(line), "busbw of <ring> & tree")
      .add_figure("link-utilisation", svg_heatmap(heat), "links x time")
      .add_figure("busbw vs size (8 GPUs)", svg_bar_chart(bars), "per node")
      .add_heading("Design points", 3)
      .add_table({.caption = "best per design",
                  .header = {"design", "busbw (GB/s)", "nodes"},
                  .rows = {{"rails & 1:1", "182.3", "8"}, {"misaligned", "120 GB/s", "n/a"}}});
  return report;
}

// An empty folder under the system's temporary folder, named after the running test.
inline std::filesystem::path scratch_dir() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      (std::string("railsim-report-") + info->test_suite_name() + "-" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace railsim::tools::report::testing
