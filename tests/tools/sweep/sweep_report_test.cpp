// File: tests/tools/sweep/sweep_report_test.cpp
// `railsim sweep --report DIR`: the figures a collective sweep and a training-step sweep give,
// the heatmap's rows, a page that does not depend on --jobs, merged results without a heatmap,
// and bad report folders refused before anything is written.
#include "tools/sweep/sweep_report.hpp"

#include "sweep_fixtures.hpp"

#include "sim/input_error.hpp"
#include "tools/command.hpp"
#include "tools/sweep/sweep_evaluate.hpp"
#include "tools/sweep/sweep_file.hpp"
#include "tools/sweep/sweep_runner.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace railsim::tools::sweep {
namespace {

using testing::fresh_folder;
using testing::read_text;
using testing::write_text;

// 2 and 4 dgx-h100 nodes, a ring Simple AllReduce of 1M, 4M, 16M and 64M (factor 4).
const std::string collective_sweep = R"({"name": "nodes-busbw", "base": {
    "system": {"node": "dgx-h100", "nodes": 2},
    "workload": {"op": "all_reduce", "minbytes": "1M", "maxbytes": "64M", "stepfactor": 4,
                 "nccl": {"algo": "ring", "proto": "simple"}}},
  "parameters": [{"name": "nodes", "set": ["/system/nodes"], "values": [2, 4]}]})";

// One GPU per node on 2 nodes, 5 ms of compute then a 64 MiB AllReduce; node 1's NIC port at
// 100%, 50% and 25% of its rate.
const std::string step_sweep = R"({"name": "nic-severity", "base": {
    "system": {"node": "dgx-h100", "nodes": 2,
               "faults": [{"link": "n1.mlx5_0>leaf0", "rate_scale": 1.0}]},
    "step": {"gpus_per_node": 1, "communicators": [{"name": "dp", "groups": "world"}],
             "phases": [{"name": "bwd", "compute": "5ms"},
                        {"name": "ar", "collective": "all_reduce", "size": "64M",
                         "communicator": "dp", "after": ["bwd"]}]}},
  "parameters": [{"name": "rate_scale", "set": ["/system/faults/0/rate_scale"],
                  "values": [1.0, 0.5, 0.25]}]})";

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// A folder holding `text` as sweep.json.
std::string sweep_folder(const std::string& name, const std::string& text) {
  std::string dir = fresh_folder(name);
  write_text(dir + "/sweep.json", text);
  return dir;
}

std::string run(const std::vector<std::string>& args) {
  std::ostringstream out;
  EXPECT_EQ(run_sweep_command(args, out), 0);
  return out.str();
}

// The message `args` throws.
std::string error_of(const std::vector<std::string>& args) {
  std::ostringstream out;
  try {
    run_sweep_command(args, out);
  } catch (const sim::InputError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

SweepResults run_text(const std::string& text, const std::string& file) {
  return run_points(parse_sweep(text, file, "."), evaluate_point, RunOptions{});
}

TEST(SweepReport, CollectiveSweepPlotsBusbwAgainstSizeWithASeriesPerNodeCount) {
  const std::string dir = sweep_folder("report-collective", collective_sweep);
  const std::string printed =
      run({dir + "/sweep.json", "--out", dir + "/out", "--report", dir + "/report"});
  EXPECT_NE(printed.find("report: " + dir + "/report/index.html"), std::string::npos) << printed;
  const std::string page = read_text(dir + "/report/index.html");
  EXPECT_NE(page.find("<title>nodes-busbw</title>"), std::string::npos);
  EXPECT_NE(page.find("2 points, 8 rows. Swept: nodes (2, 4)."), std::string::npos);
  // One figure (no heatmap: collective points do not measure links), inlined and standalone.
  EXPECT_EQ(count(page, "<svg"), 1U);
  const std::string svg = read_text(dir + "/report/busbw-vs-size.svg");
  ASSERT_FALSE(svg.empty());
  EXPECT_NE(page.find(svg), std::string::npos);
  EXPECT_EQ(count(svg, "<g class=\"series\""), 2U);
  EXPECT_NE(svg.find("data-name=\"nodes=2\""), std::string::npos);
  EXPECT_NE(svg.find("data-name=\"nodes=4\""), std::string::npos);
  // 2 series x 4 sizes.
  EXPECT_EQ(count(svg, "class=\"marker\""), 8U);
  EXPECT_NE(svg.find("64 MiB"), std::string::npos);
  // The table of every row and the largest size's busbw with its ratio to point 0.
  EXPECT_EQ(count(page, "<table"), 2U);
  EXPECT_NE(page.find("ratio to first"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"num\">67108864</td>"), std::string::npos);

  const std::vector<ReportChart> charts = sweep_line_charts(run_text(collective_sweep, "c.json"));
  ASSERT_EQ(charts.size(), 1U);
  ASSERT_EQ(charts[0].chart.series.size(), 2U);
  for (const report::Series& series : charts[0].chart.series) {
    ASSERT_EQ(series.points.size(), 4U);
    EXPECT_EQ(series.points.front().x, 1048576.0);
    EXPECT_EQ(series.points.back().x, 67108864.0);
    // busbw grows with the size on both node counts (latency weighs less).
    EXPECT_GT(series.points.back().y, series.points.front().y);
  }
}

TEST(SweepReport, StepSweepPlotsStepTimeAgainstSeverityAndAHeatmapOfTheLinksThatCarriedTraffic) {
  const SweepResults results = run_text(step_sweep, "s.json");
  const std::vector<ReportChart> charts = sweep_line_charts(results);
  ASSERT_EQ(charts.size(), 1U);
  EXPECT_EQ(charts[0].name, "step time vs rate_scale");
  EXPECT_EQ(charts[0].chart.x.label, "rate_scale");
  ASSERT_EQ(charts[0].chart.series.size(), 1U);
  const std::vector<report::Point>& points = charts[0].chart.series[0].points;
  ASSERT_EQ(points.size(), 3U);
  // rate_scale 1, 0.5, 0.25: the slower the port, the longer the step.
  EXPECT_EQ(points[0].x, 1.0);
  EXPECT_LT(points[0].y, points[1].y);
  EXPECT_LT(points[1].y, points[2].y);

  ASSERT_EQ(results.links.size(), 3U);
  const std::optional<LinkHeatmap> heatmap = link_heatmap(results);
  ASSERT_TRUE(heatmap.has_value());
  const report::Heatmap& map = heatmap->map;
  // The cells show the values as the sweep file wrote them.
  EXPECT_EQ(map.column_labels, (std::vector<std::string>{"1.0", "0.5", "0.25"}));
  EXPECT_EQ(map.column_title, "rate_scale");
  // One GPU per node: the AllReduce between the two nodes crosses only NIC 0 of each, both ways,
  // through the one leaf of rail 0. Those four ports are the fabric links that carried traffic
  // (no NVLink or PCIe link, no idle port), each at most at its capacity, busiest first.
  std::vector<std::string> rows = map.row_labels;
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, (std::vector<std::string>{"leaf0>n0.mlx5_0", "leaf0>n1.mlx5_0", "n0.mlx5_0>leaf0",
                                            "n1.mlx5_0>leaf0"}));
  ASSERT_EQ(map.values.size(), map.row_labels.size());
  for (std::size_t r = 0; r < map.row_labels.size(); ++r) {
    const std::string& link = map.row_labels[r];
    double peak = 0.0;
    ASSERT_EQ(map.values[r].size(), 3U);
    for (const double value : map.values[r]) {
      EXPECT_GE(value, 0.0) << link;
      EXPECT_LE(value, 100.0 + 1e-9) << link;
      peak = std::max(peak, value);
    }
    EXPECT_GT(peak, 0.0) << link;
  }
  // At rate_scale 0.25 the faulted port runs at a quarter of its rate, so it is the busiest link
  // of the sweep, named first in the table at that point, and busier at 0.5 than at full rate.
  EXPECT_GT(map.values[0][1], map.values[0][0]);
  ASSERT_EQ(heatmap->busiest.rows.size(), 4U);
  EXPECT_EQ(heatmap->busiest.rows[0][0], map.row_labels[0]);
  EXPECT_EQ(heatmap->busiest.rows[0][2], "0.25");
  for (std::size_t r = 1; r < map.row_labels.size(); ++r) {
    EXPECT_GE(*std::max_element(map.values[r - 1].begin(), map.values[r - 1].end()),
              *std::max_element(map.values[r].begin(), map.values[r].end()));
  }

  const std::string dir = sweep_folder("report-step", step_sweep);
  run({dir + "/sweep.json", "--out", dir + "/out", "--report", dir + "/report"});
  const std::string page = read_text(dir + "/report/index.html");
  EXPECT_EQ(count(page, "<svg"), 2U);
  EXPECT_TRUE(std::filesystem::exists(dir + "/report/step-time-vs-rate-scale.svg"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/report/link-utilisation.svg"));
  EXPECT_NE(page.find(">slowdown</th>"), std::string::npos);
  // The CSV and JSON keep their columns: no per-link ones.
  EXPECT_EQ(read_text(dir + "/out/results.csv").find("mlx5"), std::string::npos);
  EXPECT_EQ(read_text(dir + "/out/results.json").find("mlx5"), std::string::npos);
}

TEST(SweepReport, ReportIsByteIdenticalWithOneOrTwoJobs) {
  const std::string dir = sweep_folder("report-jobs", step_sweep);
  run({dir + "/sweep.json", "--jobs", "1", "--out", dir + "/out1", "--report", dir + "/one"});
  run({dir + "/sweep.json", "--jobs", "2", "--out", dir + "/out2", "--report", dir + "/two"});
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/one")) {
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(read_text(entry.path().string()),
              read_text((std::filesystem::path(dir) / "two" / name).string()))
        << name;
    ++files;
  }
  EXPECT_EQ(files, 3U);  // index.html and two figures
}

TEST(SweepReport, MergedResultsHaveNoHeatmapAndThePageSaysSo) {
  const std::string dir = sweep_folder("report-merge", step_sweep);
  run({dir + "/sweep.json", "--shard", "1/2", "--out", dir + "/s1"});
  run({dir + "/sweep.json", "--shard", "2/2", "--out", dir + "/s2"});
  run({"--merge", dir + "/s1", dir + "/s2", "--out", dir + "/merged", "--report", dir + "/report"});
  const std::string page = read_text(dir + "/report/index.html");
  EXPECT_EQ(count(page, "<svg"), 1U);
  EXPECT_NE(page.find("No link utilisation heatmap"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir + "/report/link-utilisation.svg"));
}

TEST(SweepReport, BadReportFoldersAreRefusedAndAFailedSweepWritesNothing) {
  const std::string dir = sweep_folder("report-bad", collective_sweep);
  write_text(dir + "/file", "not a folder");
  const std::string message = error_of({dir + "/sweep.json", "--report", dir + "/file/report"});
  EXPECT_EQ(message,
            "--report: cannot write " + dir + "/file/report: " + dir + "/file is not a folder");
  EXPECT_NE(error_of({dir + "/sweep.json", "--shard", "1/2", "--report", dir + "/r"})
                .find("not with --shard"),
            std::string::npos);
  write_text(dir + "/bad.json", R"({"name": "bad", "base": {
      "system": {"node": "dgx-h100", "nodes": 2},
      "workload": {"op": "all_reduce", "size": "1M"}},
    "parameters": [{"name": "nodes", "set": ["/workload/nodes"], "values": [2, 3]}]})");
  EXPECT_NE(error_of({dir + "/bad.json", "--report", dir + "/report"}).find("point 1"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir + "/report"));
}

}  // namespace
}  // namespace railsim::tools::sweep
