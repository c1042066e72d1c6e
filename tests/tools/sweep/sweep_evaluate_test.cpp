// File: tests/tools/sweep/sweep_evaluate_test.cpp
// The collective evaluator through a sweep: a parameter that changes the node count changes the
// answer as the ring's closed form says.
#include "tools/sweep/sweep_evaluate.hpp"

#include "tools/sweep/sweep_file.hpp"
#include "tools/sweep/sweep_runner.hpp"

#include <gtest/gtest.h>

#include <string>

namespace railsim::tools::sweep {
namespace {

// A 1 GiB ring Simple AllReduce over 2 and 4 dgx-h100 nodes (16 and 32 ranks), 16 channels, one
// leaf per rail. Each of a node's 8 NICs sits behind a PCIe link of 49.15 GB/s
// (tests/models/system/background_traffic_test.cpp derives it); a ring moves 2(R-1)/R x S
// through each rank's NIC, so busbw, which nccl-tests normalises by that same factor, is the
// NICs' 8 x 49.15 = 393.2 GB/s on both node counts, less the steps' network posts (3 us after
// every step but the last: 2 nodes, 2 loops of 30 steps; 4 nodes, 1 loop of 62 steps: 177 and
// 183 us on 5.12 and 5.29 ms, so 379.5 and 380.0 GB/s), and the time grows by about the factor's
// ratio, 2 x 31/32 over 2 x 15/16 = 1.0333 (1.0318 with the posts).
TEST(SweepEvaluate, RingAllReduceOnTwiceTheNodesKeepsBusbwAndTakesTheFactorsRatioLonger) {
  const std::string text = R"({"name": "nodes", "base": {
      "system": {"node": "dgx-h100", "nodes": 2},
      "workload": {"op": "all_reduce", "size": "1G",
                   "nccl": {"algo": "ring", "proto": "simple", "nchannels": 16}}},
    "parameters": [{"name": "nodes", "set": ["/system/nodes"], "values": [2, 4]}]})";
  const SweepResults results =
      run_points(parse_sweep(text, "nodes.json", "."), evaluate_point, RunOptions{});
  ASSERT_EQ(results.rows.size(), 2U);
  const auto metric = [&](std::size_t row, std::size_t column) {
    return std::get<double>(results.rows[row].metrics[column].value);
  };
  const double time2 = metric(0, 1);
  const double time4 = metric(1, 1);
  const double busbw2 = metric(0, 3);
  const double busbw4 = metric(1, 3);
  EXPECT_EQ(std::get<std::int64_t>(results.rows[1].metrics[0].value), 1073741824);
  EXPECT_NEAR(busbw2, 379.5, 0.01 * 379.5);
  EXPECT_NEAR(busbw4, 380.0, 0.01 * 380.0);
  EXPECT_NEAR(busbw4 / busbw2, 1.0, 0.005);
  EXPECT_NEAR(time4 / time2, (2.0 * 31 / 32) / (2.0 * 15 / 16), 0.005);
  EXPECT_EQ(std::get<std::string>(results.rows[0].metrics[4].value), "ring");
  EXPECT_EQ(std::get<std::string>(results.rows[0].metrics[5].value), "simple");
}

}  // namespace
}  // namespace railsim::tools::sweep
