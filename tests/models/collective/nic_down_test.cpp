// File: tests/models/collective/nic_down_test.cpp
// A NIC lost: NCCL leaves it out of the node's topology and its GPUs move to the nearest NIC
// left, which then carries their channels too.
#include "collective_testbed.hpp"

#include "models/collective/ring_layout.hpp"
#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace railsim::models {
namespace {

using testing::kGen5GBps;

// Two dgx-h100 nodes, 16 ranks, with the named fabric link taken out of service.
struct Testbed : testing::CollectiveBed {
  Testbed() : CollectiveBed(2, 8) {}

  void take_down(const std::string& name) {
    const std::optional<sim::LinkId> link = network.find_link(name);
    ASSERT_TRUE(link) << "no link " << name;
    system->set_link_down(*link);
  }
};

TEST(NicDown, ItsGpuMovesToTheNearestNicLeft) {
  // dgx-h100: GPU g and NIC g share a PCIe switch. With NIC 0 of node 1 down, GPU 0 there
  // moves to a NIC of its own socket (NODE distance, NICs 1-3), the least used then lowest:
  // NIC 1. Node 0 is untouched.
  Testbed bed;
  bed.take_down("n1.mlx5_0>leaf0");
  EXPECT_EQ(gpu_nics_on(*bed.system, 0, 8), (GpuNicSets{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}));
  EXPECT_EQ(gpu_nics_on(*bed.system, 1, 8), (GpuNicSets{{1}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}));
}

TEST(NicDown, TheNicLeftCarriesTwiceTheChannelsAndHalvesTheRing) {
  // 16 channels, CROSS_NIC 2: each NIC of a node sends two channels and receives two. On node
  // 1, NIC 1 now also carries GPU 0's: four channels over its 49.15 GB/s PCIe link each way,
  // 12.29 GB/s each, and a ring moves at its slowest channel: the links at 16 x 12.29 = 196.6
  // GB/s of busbw, half the 393.2 of the healthy pair, take 2 x 15/16 x 2^30 / 196.6e9 =
  // 10.24 ms; with 59 steps' posts of 3 us (2 loops of 30 steps) and 8.4 us base latency the
  // busbw is 193.3 GB/s.
  Testbed bed;
  bed.take_down("n1.mlx5_0>leaf0");
  const double busbw = bed.run(CollectiveOp::kAllReduce, sim::gib(1), Algorithm::kRing,
                               Protocol::kSimple, 16, Execution::kPipelined)
                           .busbw_GBps;
  const double moved = 2.0 * 15.0 / 16.0 * 1073741824.0;
  const double expected =
      moved / (moved / (16.0 * kGen5GBps / 4.0 * 1e9) + 59 * 3e-6 + 8.4e-6) / 1e9;
  EXPECT_NEAR(busbw, expected, 0.01 * expected);
}

TEST(NicDown, ANodeWithEveryNicDownCannotJoin) {
  Testbed bed;
  for (const char* nic : {"mlx5_0>leaf0", "mlx5_3>leaf1", "mlx5_4>leaf2", "mlx5_5>leaf3",
                          "mlx5_6>leaf4", "mlx5_9>leaf5", "mlx5_10>leaf6", "mlx5_11>leaf7"}) {
    bed.take_down(std::string("n1.") + nic);
  }
  EXPECT_THROW(gpu_nics_on(*bed.system, 1, 8), sim::InputError);
}

}  // namespace
}  // namespace railsim::models
