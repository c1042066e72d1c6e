// File: tests/models/system/background_traffic_test.cpp
// Other jobs' streams on a shared fabric: what they leave a collective, against closed forms
// of max-min sharing, and the errors for streams the system cannot carry.
#include "models/system/background_traffic.hpp"

#include "../collective/collective_testbed.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

namespace railsim::models {
namespace {

// Per direction, GB/s: an NDR port's IB payload, 50 x 4096 / 4122 (MTU 4096, 26 B of headers);
// the PCIe Gen5 x16 link of each NIC and GPU at 0.78 (kPcieEfficiency).
constexpr double kPortGBps = 50.0 * 4096.0 / 4122.0;
using testing::kGen5GBps;

// dgx-h100 nodes under one leaf per rail; collectives over the first two.
struct Testbed : testing::CollectiveBed {
  explicit Testbed(int nodes) : CollectiveBed(nodes, 8) { comm = {2, 8}; }
};

// A 1 GiB ring AllReduce (Simple, 16 channels) on nodes 0-1 of three while node 2 streams into
// node 1 on every rail.
double busbw_with_stream(double load) {
  Testbed bed(3);
  start_background(*bed.system, bed.network, {{2, 1, load, {}, "test"}});
  return bed
      .run(CollectiveOp::kAllReduce, sim::gib(1), Algorithm::kRing, Protocol::kSimple, 16,
           Execution::kPipelined)
      .busbw_GBps;
}

// The busbw of the 1 GiB ring when its links move `bus` GB/s of it: 2 x 15/16 x 2^30 bytes in
// their time plus the 59 network posts of 3 us per channel (2 loops of 30 steps; derived in
// tests/models/collective/collective_run_test.cpp).
double with_posts(double bus) {
  const double moved = 2.0 * 15.0 / 16.0 * 1073741824.0;
  return moved / (moved / (bus * 1e9) + 59 * 3e-6) / 1e9;
}

TEST(BackgroundTraffic, AStreamAtHalfThePortRateTakesAThirdOfTheNicLink) {
  // Node 1's NIC k receives rail k's stream (capped at 0.5 x 49.68 = 24.84 GB/s) and two ring
  // channels, all three crossing that NIC's PCIe link (49.15 GB/s) on their way to memory:
  // max-min gives each 49.15 / 3 = 16.38 GB/s, below the stream's cap. The links move 16
  // channels x 16.38 = 262.1 GB/s of busbw (without the stream: 8 x 49.15 = 393.2); 256.2 with
  // the posts.
  const double expected = with_posts(16.0 * kGen5GBps / 3.0);
  EXPECT_NEAR(busbw_with_stream(0.5), expected, 0.01 * expected);
}

TEST(BackgroundTraffic, AStreamBelowItsFairShareKeepsItsLoad) {
  // At 0.2 the stream's cap, 0.2 x 49.68 = 9.94 GB/s, is below a third of the link: it keeps
  // it, and the two channels share the rest, (49.15 - 9.94) / 2 = 19.61 GB/s each: 313.7 GB/s
  // of busbw on the links, 305.3 with the posts.
  const double expected = with_posts(16.0 * (kGen5GBps - 0.2 * kPortGBps) / 2.0);
  EXPECT_NEAR(busbw_with_stream(0.2), expected, 0.01 * expected);
}

TEST(BackgroundTraffic, RejectsStreamsTheSystemCannotCarry) {
  Testbed bed(2);
  const System& system = *bed.system;
  sim::FlowNetwork& network = bed.network;
  EXPECT_THROW(start_background(system, network, {{0, 2, 0.5, {}, "to a third node"}}),
               sim::InputError);
  EXPECT_THROW(start_background(system, network, {{0, 0, 0.5, {}, "to itself"}}), sim::InputError);
  EXPECT_THROW(start_background(system, network, {{0, 1, 0.0, {}, "no load"}}), sim::InputError);
  EXPECT_THROW(start_background(system, network, {{0, 1, 0.5, {8}, "rail 8"}}), sim::InputError);
}

}  // namespace
}  // namespace railsim::models
