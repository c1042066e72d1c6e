// File: tests/tools/sweep/sweep_runner_test.cpp
// The parallel runner: rows gathered in point order whatever the thread count, shards that
// partition the points, the error of the lowest failing point, and the CSV/JSON it feeds.
#include "tools/sweep/sweep_runner.hpp"

#include "sweep_fixtures.hpp"

#include "sim/input_error.hpp"
#include "tools/sweep/sweep_file.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace railsim::tools::sweep {
namespace {

using testing::base_scenario;
using testing::echo_point;

const std::string sweep_text = R"({"name": "grid", "base": )" + base_scenario + R"(, "parameters": [
  {"name": "nodes", "set": ["/system/nodes"], "values": [2, 3, 4]},
  {"name": "rails", "set": ["/system/fabric/rails"], "values": ["aligned", "misaligned"]},
  {"name": "size", "set": ["/workload/size"], "values": ["1M", "2M"]}]})";

SweepResults run(const std::string& text, const Evaluator& evaluate, RunOptions options) {
  return run_points(parse_sweep(text, "grid.json", "."), evaluate, options);
}

TEST(SweepRunner, RowsFollowThePointsWithTheirParameters) {
  RunOptions options;
  options.jobs = 3;
  const SweepResults results = run(sweep_text, echo_point, options);
  ASSERT_EQ(results.rows.size(), 12U);
  for (std::size_t i = 0; i < results.rows.size(); ++i) {
    EXPECT_EQ(results.rows[i].point, i);
  }
  // Point 5 = 1 x 4 + 0 x 2 + 1: 3 nodes, aligned, 2M; the evaluator saw exactly that.
  const ResultRow& row = results.rows[5];
  EXPECT_EQ(row.cells, (std::vector<std::string>{"3", R"("aligned")", R"("2M")"}));
  EXPECT_EQ(std::get<std::int64_t>(row.metrics[0].value), 3);
  EXPECT_EQ(std::get<std::string>(row.metrics[1].value), "aligned");
  EXPECT_DOUBLE_EQ(std::get<double>(row.metrics[2].value), 2097152.0 / 3.0 / 3.0);
}

TEST(SweepRunner, CsvHasPointParametersThenMetrics) {
  RunOptions options;
  options.jobs = 1;
  const std::string csv = results_csv(run(sweep_text, echo_point, options));
  // 1048576 / 3 / 2 = 174762.666..., written in its shortest round-trip form.
  EXPECT_EQ(csv.substr(0, csv.find('\n', csv.find('\n') + 1) + 1),
            "point,nodes,rails,size,seen_nodes,seen_rails,per_node\n"
            "0,2,aligned,1M,2,aligned,174762.66666666666\n");
}

TEST(SweepRunner, OutputIsByteIdenticalWithOneOrTwoJobs) {
  // The real evaluator, on 2 and 3 nodes, both cablings: four simulations.
  const std::string text = R"({"name": "jobs", "base": )" + base_scenario + R"(, "parameters": [
    {"name": "nodes", "set": ["/system/nodes"], "values": [2, 3]},
    {"name": "rails", "set": ["/system/fabric/rails"], "values": ["aligned", "misaligned"]}]})";
  RunOptions one;
  one.jobs = 1;
  RunOptions two;
  two.jobs = 2;
  const SweepResults a = run(text, evaluate_point, one);
  const SweepResults b = run(text, evaluate_point, two);
  ASSERT_EQ(a.rows.size(), 4U);
  EXPECT_EQ(results_csv(a), results_csv(b));
  EXPECT_EQ(results_json(a), results_json(b));
  EXPECT_EQ(metric_names(a), (std::vector<std::string>{"size_bytes", "time_us", "algbw_GBps",
                                                       "busbw_GBps", "algo", "proto"}));
}

TEST(SweepRunner, ShardsPartitionThePoints) {
  RunOptions options;
  options.shard = Shard{2, 5};
  const SweepResults results = run(sweep_text, echo_point, options);
  // Of points 0-11, those with i % 5 == 1.
  ASSERT_EQ(results.rows.size(), 3U);
  EXPECT_EQ(results.rows[0].point, 1U);
  EXPECT_EQ(results.rows[1].point, 6U);
  EXPECT_EQ(results.rows[2].point, 11U);
  EXPECT_EQ(results.points, 12U);
  const nlohmann::json json = nlohmann::json::parse(results_json(results));
  EXPECT_EQ(json["shard"], "2/5");
  EXPECT_EQ(json["points"], 12);
}

TEST(SweepRunner, TheLowestFailingPointsErrorIsReported) {
  // Points 1 and 3 ask for 3 workload nodes of a 2-node system.
  const std::string text = R"({"name": "bad", "base": )" + base_scenario + R"(, "mode": "list",
    "parameters": [{"name": "n", "set": ["/workload/nodes"], "values": [1, 3, 2, 3]}]})";
  for (const int jobs : {1, 2, 4}) {
    RunOptions options;
    options.jobs = jobs;
    try {
      run(text, evaluate_point, options);
      ADD_FAILURE() << "expected an error";
    } catch (const sim::InputError& error) {
      EXPECT_STREQ(error.what(),
                   "grid.json point 1 (n=3): /workload/nodes: expected an integer from 1 to 2, "
                   "got 3");
    }
  }
}

TEST(SweepRunner, TrainingStepPointsGiveTheStepMetrics) {
  // One GPU per node, 5 ms of compute then a 256 MiB AllReduce, node 1's NIC port at 100% and
  // 50%: the healthy time is the same at both points, the 100% point is the healthy one, and
  // halving the port slows the step.
  const std::string text = R"({"name": "slow", "base": {
      "system": {"node": "dgx-h100", "nodes": 2,
                 "faults": [{"link": "n1.mlx5_0>leaf0", "rate_scale": 1.0}]},
      "step": {"gpus_per_node": 1, "communicators": [{"name": "dp", "groups": "world"}],
               "phases": [{"name": "bwd", "compute": "5ms"},
                          {"name": "ar", "collective": "all_reduce", "size": "256M",
                           "communicator": "dp", "after": ["bwd"]}]}},
    "parameters": [{"name": "rate_scale", "set": ["/system/faults/0/rate_scale"],
                    "values": [1.0, 0.5]}]})";
  const SweepResults results = run(text, evaluate_point, RunOptions{});
  ASSERT_EQ(results.rows.size(), 2U);
  const auto metric = [&](std::size_t row, const std::string& name) {
    for (const Metric& m : results.rows[row].metrics) {
      if (m.name == name) {
        return std::get<double>(m.value);
      }
    }
    ADD_FAILURE() << "no metric " << name;
    return 0.0;
  };
  EXPECT_EQ(metric(0, "healthy_step_time_ms"), metric(1, "healthy_step_time_ms"));
  EXPECT_EQ(metric(0, "step_time_ms"), metric(0, "healthy_step_time_ms"));
  EXPECT_EQ(metric(0, "slowdown"), 1.0);
  EXPECT_GT(metric(1, "slowdown"), 1.1);
  EXPECT_GT(metric(1, "comm_wait_fraction"), metric(0, "comm_wait_fraction"));
}

TEST(SweepRunner, MetricNamedLikeAParameterIsAnError) {
  const std::string text = R"({"name": "clash", "base": )" + base_scenario + R"(,
    "parameters": [{"name": "seen_nodes", "set": ["/system/nodes"], "values": [2]}]})";
  const SweepResults results = run(text, echo_point, RunOptions{});
  EXPECT_THROW(results_csv(results), sim::InputError);
}

}  // namespace
}  // namespace railsim::tools::sweep
