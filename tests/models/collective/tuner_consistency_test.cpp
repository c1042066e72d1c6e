// File: tests/models/collective/tuner_consistency_test.cpp
// The executed model against NCCL's own estimate: at every size where NCCL's tuner (as
// nccl_tuning.cpp models it) picks an (algorithm, protocol), the simulated time of that pair is
// within 25% of the tuner's estimate (sized_cost), on dgx-h100 nodes with 8 GPUs (1, 2, 16 and 128
// nodes) and with one GPU per node (PAT's case: 10 and 128 nodes), and on switches that reduce
// (CollNet's case: 2 and 16 nodes of 8 GPUs, 10 of one). NVIDIA fits its model to real
// hardware, so where the two part, one of them is off; the cases where they part by more are
// listed below with their measured band and why (docs/validation.md, "Against NCCL's estimate"),
// so that the test still fails if either side moves. Release builds only: about two minutes.
#include "collective_testbed.hpp"

#include "models/collective/nccl_tuning.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace railsim::models {
namespace {

using testing::CollectiveBed;
using testing::seconds;

struct Shape {
  int nodes;
  int gpus_per_node;
  std::int64_t size_factor;  // sizes from 8 B to 8 GiB by this factor
  bool sharp = false;        // the switches reduce: CollNet runs as well
};

// A pair whose simulated time parts from NCCL's estimate by more than 25% over a size range:
// the ratio (simulated / estimate) stays within [low, high] there. Measured 2026-12-05; the
// causes are in docs/validation.md ("Against NCCL's estimate").
struct KnownGap {
  Shape shape;
  std::vector<CollectiveOp> ops;
  Algorithm algorithm;
  Protocol protocol;
  std::int64_t from;  // bytes, inclusive
  std::int64_t to;
  double low;
  double high;
};

constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kMiB = 1024 * kKiB;

const std::vector<KnownGap>& known_gaps() {
  using enum CollectiveOp;
  const std::vector<CollectiveOp> gather_scatter = {kAllGather, kReduceScatter};
  const Shape one_node{1, 8, 2};
  const Shape two_nodes{2, 8, 2};
  const Shape sixteen{16, 8, 2};
  const Shape large{128, 8, 4};
  const Shape ten_single{10, 1, 2};
  const Shape large_single{128, 1, 4};
  static const std::vector<KnownGap> gaps = {
      // Streamed protocols (LL, LL128): the simulated call forwards each line as it lands, so its
      // bytes overlap its hop latencies; NCCL's estimate adds the two. Faster where both are of
      // one size.
      {one_node, {kAllReduce}, Algorithm::kRing, Protocol::kLl, 512 * kKiB, 1 * kMiB, 0.68, 0.76},
      {one_node, gather_scatter, Algorithm::kRing, Protocol::kLl128, 8 * kMiB, 8 * kMiB, 0.7, 0.8},
      {ten_single,
       {kAllReduce},
       Algorithm::kRing,
       Protocol::kLl128,
       2 * kMiB,
       8 * kMiB,
       0.42,
       0.76},
      {ten_single, gather_scatter, Algorithm::kRing, Protocol::kLl128, 8 * kMiB, 8 * kMiB, 0.68,
       0.78},
      {ten_single,
       {kAllReduce},
       Algorithm::kTree,
       Protocol::kLl128,
       1 * kMiB,
       1 * kMiB,
       0.68,
       0.78},
      {sixteen, gather_scatter, Algorithm::kRing, Protocol::kLl128, 32 * kMiB, 64 * kMiB, 0.68,
       0.77},
      {large_single,
       {kAllReduce},
       Algorithm::kTree,
       Protocol::kLl,
       128 * kKiB,
       128 * kKiB,
       0.68,
       0.77},
      {large_single,
       {kAllReduce},
       Algorithm::kTree,
       Protocol::kLl128,
       2 * kMiB,
       32 * kMiB,
       0.58,
       0.78},
      {large_single, gather_scatter, Algorithm::kRing, Protocol::kLl128, 128 * kMiB, 128 * kMiB,
       0.68, 0.78},
      {large, gather_scatter, Algorithm::kRing, Protocol::kLl128, 512 * kMiB, 512 * kMiB, 0.66,
       0.76},
      // PAT: its loops overlap its step latencies with its bytes, which move at the links' rate;
      // NCCL's estimate adds its latency to the bytes at 0.75 of the ring's bandwidth.
      {ten_single, gather_scatter, Algorithm::kPat, Protocol::kSimple, 4 * kMiB, 4 * kMiB, 0.55,
       0.7},
      // Tree LL on 10 nodes: NCCL's estimate counts floor(log2 10) = 3 levels each way; its double
      // binary tree on 10 nodes is 4 deep, which the simulated tree crosses.
      {ten_single, {kAllReduce}, Algorithm::kTree, Protocol::kLl, 8, 8 * kKiB, 1.2, 1.36},
      // NVLS Tree where its pipeline has few chunks: each head's tree edge carries the
      // per-channel cap split over the heads, store-and-forward per 64 KiB chunk.
      {two_nodes,
       {kAllReduce},
       Algorithm::kNvlsTree,
       Protocol::kSimple,
       4 * kMiB,
       64 * kMiB,
       1.3,
       1.8},
      {sixteen,
       {kAllReduce},
       Algorithm::kNvlsTree,
       Protocol::kSimple,
       32 * kMiB,
       128 * kMiB,
       1.3,
       2.05},
      {large,
       {kAllReduce},
       Algorithm::kNvlsTree,
       Protocol::kSimple,
       128 * kMiB,
       128 * kMiB,
       1.5,
       1.7},
      // CollNet where bandwidth counts: NCCL's estimate halves its bus bandwidth into algorithm
      // bandwidth as a tree's (and rates Direct at 8 heads x 48 GB/s x 0.85); a SHARP AllReduce
      // sends each byte once each way through a NIC, so the run is bound by the NVSwitch ports
      // (1.75 S each way) on 8 GPUs a node and by the NIC (S each way) on one: faster.
      {sixteen,
       {kAllReduce},
       Algorithm::kCollNetDirect,
       Protocol::kSimple,
       16 * kMiB,
       16 * kMiB,
       0.68,
       0.78},
      {sixteen,
       {kAllReduce},
       Algorithm::kCollNetChain,
       Protocol::kSimple,
       32 * kMiB,
       32 * kMiB,
       0.65,
       0.75},
      {ten_single,
       {kAllReduce},
       Algorithm::kCollNetChain,
       Protocol::kSimple,
       1 * kMiB,
       64 * kMiB,
       0.45,
       0.76},
  };
  return gaps;
}

class TunerConsistency : public ::testing::TestWithParam<Shape> {};

TEST_P(TunerConsistency, SimulatedTimeIsWithin25PercentOfNcclsEstimate) {
  const Shape& shape = GetParam();
  SystemSpec spec = CollectiveBed::spec_of(shape.nodes, "dgx-h100", "");
  if (shape.sharp) {
    spec.fabric.sharp = SharpSpec{};
  }
  CollectiveBed bed(spec, shape.gpus_per_node);
  const TuningTopology topology = tuning_topology(*bed.system, bed.comm);
  const std::vector<Algorithm> algorithms(kAlgorithms.begin(), kAlgorithms.end());
  const std::vector<Protocol> protocols(kProtocols.begin(), kProtocols.end());
  for (const CollectiveOp op :
       {CollectiveOp::kAllReduce, CollectiveOp::kAllGather, CollectiveOp::kReduceScatter}) {
    for (std::int64_t size = 8; size <= (std::int64_t{8} << 30); size *= shape.size_factor) {
      const auto bytes = static_cast<double>(size);
      const std::optional<AlgoChoice> choice =
          select_algorithm(topology, op, bytes, algorithms, protocols);
      ASSERT_TRUE(choice);
      const CollectiveResult r =
          bed.run(op, sim::bytes(size), choice->algorithm, choice->protocol, std::nullopt);
      const double ratio = seconds(r.time) * 1e6 / choice->cost.time_us(bytes);
      const std::string what = fmt::format(
          "{} x {} {} {} B {} {}: simulated {:.1f} us, NCCL's estimate {:.1f} us, ratio {:.2f}",
          shape.nodes, shape.gpus_per_node, op_name(op), size, algorithm_name(choice->algorithm),
          protocol_name(choice->protocol), seconds(r.time) * 1e6, choice->cost.time_us(bytes),
          ratio);
      const auto gap =
          std::find_if(known_gaps().begin(), known_gaps().end(), [&](const KnownGap& g) {
            return g.shape.nodes == shape.nodes && g.shape.gpus_per_node == shape.gpus_per_node &&
                   std::find(g.ops.begin(), g.ops.end(), op) != g.ops.end() &&
                   g.algorithm == choice->algorithm && g.protocol == choice->protocol &&
                   size >= g.from && size <= g.to;
          });
      if (gap != known_gaps().end()) {
        EXPECT_GE(ratio, gap->low) << what;
        EXPECT_LE(ratio, gap->high) << what;
        std::cout << "  known gap: " << what << "\n";
      } else {
        EXPECT_NEAR(ratio, 1.0, 0.25) << what;
      }
    }
  }
}

std::string shape_name(const ::testing::TestParamInfo<Shape>& param_info) {
  return fmt::format("Nodes{}x{}", param_info.param.nodes, param_info.param.gpus_per_node);
}

INSTANTIATE_TEST_SUITE_P(DgxH100,
                         TunerConsistency,
                         ::testing::Values(Shape{1, 8, 2},
                                           Shape{2, 8, 2},
                                           Shape{16, 8, 2},
                                           Shape{128, 8, 4},
                                           Shape{10, 1, 2},
                                           Shape{128, 1, 4}),
                         shape_name);

INSTANTIATE_TEST_SUITE_P(DgxH100Sharp,
                         TunerConsistency,
                         ::testing::Values(Shape{2, 8, 2, true},
                                           Shape{16, 8, 2, true},
                                           Shape{10, 1, 2, true}),
                         shape_name);

}  // namespace
}  // namespace railsim::models
