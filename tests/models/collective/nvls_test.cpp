// File: tests/models/collective/nvls_test.cpp
// NVLS on one NVSwitch node: the port loads of its plan, the busbw its link model gives against
// a closed form and against real H100 figures (NVIDIA/nccl#1455, nccl-tests#272), its latency
// floor, the two executions against each other, and what NCCL would not run.
#include "collective_testbed.hpp"

#include "models/collective/nvls_plan.hpp"
#include "sim/input_error.hpp"
#include "sim/median.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <vector>

namespace railsim::models {
namespace {

using testing::CollectiveBed;
using testing::kH100PortGBps;
using testing::seconds;

// Each GPU's port loads, up to the switch and down from it, summed over the plan.
std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> port_totals(const NvlsPlan& plan) {
  std::vector<std::int64_t> up(static_cast<std::size_t>(plan.ranks), 0);
  std::vector<std::int64_t> down(static_cast<std::size_t>(plan.ranks), 0);
  for (const NvlsOperation& op : nvls_operations(plan)) {
    for (const PortLoad& load : nvls_operation(plan.op, plan.ranks, op.head, op.bytes)) {
      (load.to_switch ? up : down)[static_cast<std::size_t>(load.gpu)] += load.bytes.count;
    }
  }
  return {up, down};
}

TEST(NvlsPlan, EachPortCarriesTheBufferPlusOneShareEachWay) {
  // AllReduce of S on 8 GPUs: every GPU's copy of every piece is read by the switch (S up per
  // GPU), each head gets its S/8 back (down) and stores it once (up), and the switch writes
  // every piece to every GPU (S down): S x 9/8 each way. AllGather: a GPU stores its S/8 share
  // and receives all S; ReduceScatter the reverse. S = 16 MiB divides into 16 channels x 8 heads.
  const std::int64_t s = sim::mib(16).count;
  const std::vector<std::pair<CollectiveOp, std::pair<std::int64_t, std::int64_t>>> cases = {
      {CollectiveOp::kAllReduce, {s * 9 / 8, s * 9 / 8}},
      {CollectiveOp::kAllGather, {s / 8, s}},
      {CollectiveOp::kReduceScatter, {s, s / 8}}};
  for (const auto& [op, expected] : cases) {
    const auto [up, down] = port_totals(make_nvls_plan(op, sim::bytes(s), 8, 16));
    for (int g = 0; g < 8; ++g) {
      EXPECT_EQ(up[static_cast<std::size_t>(g)], expected.first) << op_name(op) << " gpu " << g;
      EXPECT_EQ(down[static_cast<std::size_t>(g)], expected.second) << op_name(op) << " gpu " << g;
    }
  }
  EXPECT_THROW(make_nvls_plan(CollectiveOp::kBroadcast, sim::bytes(s), 8, 16), sim::InputError);
}

// The link model's NVLS AllReduce busbw on n GPUs: each port moves S (n+1)/n per direction at
// the ring's 370 GB/s x NCCL's Hopper NVLS efficiency 0.85 = 314.5 GB/s, so
// algbw = 314.5 n/(n+1) and busbw = algbw x 2(n-1)/n = 314.5 x 2(n-1)/(n+1).
double nvls_busbw(int n) { return kH100PortGBps * 0.85 * 2.0 * (n - 1) / (n + 1); }

TEST(NvlsRun, EightH100sReachTheClosedFormAndTheMeasured480) {
  // 4 GiB on 8 GPUs: 314.5 x 14/9 = 489.2 GB/s busbw; t = 9/8 x 2^32 / 314.5e9 + 25 us.
  // Measured: ~480 GB/s (nccl-tests#212, nccl#1455), 479.7 at 4 GiB in the xxrjun log.
  CollectiveBed bed(1, 8);
  const CollectiveResult r = bed.run(CollectiveOp::kAllReduce, sim::gib(4), Algorithm::kNvls,
                                     Protocol::kSimple, std::nullopt, Execution::kPipelined);
  EXPECT_EQ(r.channels, 16);  // NVLS channels on Hopper (nccl:src/transport/nvls.cc)
  const double expected = 9.0 / 8.0 * 4294967296.0 / (kH100PortGBps * 0.85 * 1e9) + 25e-6;
  EXPECT_NEAR(seconds(r.time), expected, 0.005 * expected);
  EXPECT_NEAR(r.busbw_GBps, nvls_busbw(8), 0.01 * nvls_busbw(8));
  EXPECT_NEAR(r.busbw_GBps, 479.7, 0.03 * 479.7);
}

TEST(NvlsRun, BusbwGrowsWithTheGpuCountAsMeasuredOnH100) {
  // Measured NVLS AllReduce busbw on H100 (NVIDIA/nccl#1455): ~370 on 4 GPUs,
  // ~420 / 440 / 460 / 480 on 5 / 6 / 7 / 8. The closed form gives 377 / 419 / 449 / 472 / 489:
  // within 3% of each (the 2-3 GPU figures, ~370, are the ring's: NVLS gives 210 / 315 there).
  const std::vector<std::pair<int, double>> measured = {
      {4, 370.0}, {5, 420.0}, {6, 440.0}, {7, 460.0}, {8, 480.0}};
  for (const auto& [n, real] : measured) {
    CollectiveBed bed(1, n);
    const CollectiveResult r = bed.run(CollectiveOp::kAllReduce, sim::gib(4), Algorithm::kNvls,
                                       Protocol::kSimple, std::nullopt, Execution::kPipelined);
    EXPECT_NEAR(r.busbw_GBps, nvls_busbw(n), 0.01 * nvls_busbw(n)) << n << " GPUs";
    EXPECT_NEAR(r.busbw_GBps, real, 0.03 * real) << n << " GPUs";
  }
}

TEST(NvlsRun, SmallAllReduceTakesNcclsNvlsLatency) {
  // NCCL's NVLS latency is its NVLink hop latency alone, 25 us, no base (nccl:src/graph/tuning.cc);
  // 8 B add picoseconds.
  CollectiveBed bed(1, 8);
  const CollectiveResult r =
      bed.run(CollectiveOp::kAllReduce, sim::bytes(8), Algorithm::kNvls, std::nullopt, 16);
  EXPECT_GE(seconds(r.time), 25.0e-6);
  EXPECT_LT(seconds(r.time), 25.1e-6);
}

TEST(NvlsRun, ExecutionsAgreeWithinTwoPercent) {
  // One hop through the switch: the chunk run's operations stream back to back per head, so its
  // time is the pipelined drain plus the last operation's hold.
  for (const CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kAllGather}) {
    for (const std::int64_t size : {std::int64_t{4} << 20, std::int64_t{256} << 20}) {
      CollectiveBed chunk_bed(1, 8);
      CollectiveBed pipe_bed(1, 8);
      const double chunk = seconds(chunk_bed
                                       .run(op, sim::bytes(size), Algorithm::kNvls,
                                            Protocol::kSimple, std::nullopt, Execution::kChunk)
                                       .time);
      const double pipelined =
          seconds(pipe_bed
                      .run(op, sim::bytes(size), Algorithm::kNvls, Protocol::kSimple, std::nullopt,
                           Execution::kPipelined)
                      .time);
      EXPECT_NEAR(pipelined, chunk, 0.02 * chunk) << op_name(op) << " " << size << " B";
    }
  }
}

TEST(NvlsRun, RejectsWhatNcclWouldNotRun) {
  // NVLS needs SM90+ GPUs on an NVSwitch (not A100, not NVLink bridges), Simple, and one node
  // here (across nodes it needs CollNet); no Broadcast.
  CollectiveBed a100(1, 8, "dgx-a100");
  EXPECT_THROW(a100.run(CollectiveOp::kAllReduce, sim::mib(1), Algorithm::kNvls, std::nullopt, {}),
               sim::InputError);
  CollectiveBed bridged(1, 2, "a100-pcie-nvlink-bridge");
  EXPECT_THROW(
      bridged.run(CollectiveOp::kAllReduce, sim::mib(1), Algorithm::kNvls, std::nullopt, {}),
      sim::InputError);
  CollectiveBed h100(2, 8);
  EXPECT_THROW(h100.run(CollectiveOp::kAllReduce, sim::mib(1), Algorithm::kNvls, std::nullopt, {}),
               sim::InputError);
  CollectiveBed one(1, 8);
  EXPECT_THROW(one.run(CollectiveOp::kBroadcast, sim::mib(1), Algorithm::kNvls, std::nullopt, {}),
               sim::InputError);
  EXPECT_THROW(one.run(CollectiveOp::kAllReduce, sim::mib(1), Algorithm::kNvls, Protocol::kLl, {}),
               sim::InputError);
}

TEST(NvlsRun, AutoRunsNvlsOnEightH100sAndClosesTheRealLogsGap) {
  // The 1-node 8-GPU AllReduce log of tests/data (NCCL 2.29.2, which ran NVLS): with `auto`
  // railsim now picks NVLS too, and the median busbw error over sizes >= 64 MiB falls from the
  // ring's 21% (docs/validation.md) to under 15%, the bar the other logs meet.
  std::ifstream in(std::string(RAILSIM_SOURCE_DIR) +
                   "/tests/data/nccl-tests_5ops_h100_1node-8gpu_xxrjun-cluster01.json");
  ASSERT_TRUE(in);
  const nlohmann::json log = nlohmann::json::parse(in);
  CollectiveBed bed(1, 8);
  std::vector<double> errors;
  for (const auto& test : log.at("tests")) {
    if (test.at("operation") != "all_reduce_perf") {
      continue;
    }
    for (const auto& row : test.at("rows")) {
      const std::int64_t size = row.at("size_bytes");
      if (size < (std::int64_t{64} << 20)) {
        continue;
      }
      const CollectiveResult r = bed.run(CollectiveOp::kAllReduce, sim::bytes(size), std::nullopt,
                                         std::nullopt, std::nullopt, Execution::kPipelined);
      EXPECT_EQ(r.algorithm, Algorithm::kNvls) << size;
      const double measured = row.at("oop_busbw_GBps");
      errors.push_back(std::abs(r.busbw_GBps - measured) / measured);
      std::cout << fmt::format("  {:>12} B  measured {:7.2f}  nvls {:7.2f} GB/s\n", size, measured,
                               r.busbw_GBps);
    }
  }
  ASSERT_EQ(errors.size(), 9u);
  const double median = sim::median(errors);
  std::cout << fmt::format("  median |error| {:.1f}%\n", median * 100);
  EXPECT_LE(median, 0.15);
}

}  // namespace
}  // namespace railsim::models
