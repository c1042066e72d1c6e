// File: tests/tools/collective/gdr_level_option_test.cpp
// `--gdr-level` (NCCL_NET_GDR_LEVEL) on collective, run and p2p: the level replaces the system's,
// and a GPU that may not use GPUDirect RDMA stages through its socket's memory, whose cost is
// derived below; a value NCCL does not take is bad input naming the option.
#include "sim/input_error.hpp"
#include "tools/command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace railsim::tools {
namespace {

// busbw of a 1 GiB ring AllReduce, Simple, 16 channels, on 2 dgx-h100 nodes.
double ring_busbw(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {
      "--system", "dgx-h100", "--op",    "all_reduce", "-b",          "1G", "-e",       "1G",
      "--algo",   "ring",     "--proto", "simple",     "--nchannels", "16", "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::ostringstream out;
  EXPECT_EQ(run_collective(args, out), 0);
  return nlohmann::json::parse(out.str()).at("rows").at(0).at("busbw_GBps").get<double>();
}

TEST(GdrLevelOption, LocStagesEveryNicThroughItsSocketsMemory) {
  // With GPUDirect RDMA (PIX within the default PXB) the 8 GPU-NIC Gen5 links bind:
  // CollectiveRun.TwoNodeRingAllReduceIsBoundByEightGdrPcieLinks, 379.5 GB/s. With LOC every
  // send is written to the sender's socket memory and read from it, every receive the same on
  // the receiver: a socket's 4 NICs each cross its 307.2 GB/s memory 4 times per byte each
  // way carries, so a NIC moves 307.2 / 16 = 19.2 GB/s per direction and the ring 8 x 19.2 =
  // 153.6 GB/s: 2 x 15/16 x 2^30 / 153.6e9 = 13.11 ms, plus 59 posts of 3 us and 8.4 us of
  // base latency, 13.29 ms, busbw 151.5 GB/s.
  const double drain = 2.0 * 15.0 / 16.0 * 1073741824.0 / 153.6e9;
  const double expected = 2.0 * 15.0 / 16.0 * 1073741824.0 / (drain + 59 * 3e-6 + 8.4e-6) / 1e9;
  EXPECT_NEAR(ring_busbw({"--gdr-level", "LOC"}), expected, 0.01 * expected);
  EXPECT_NEAR(ring_busbw({"--gdr-level", "0"}), expected, 0.01 * expected);  // NCCL's legacy 0
  EXPECT_NEAR(ring_busbw({"--gdr-level", "SYS"}), 379.5, 0.01 * 379.5);
}

TEST(GdrLevelOption, AValueNcclDoesNotTakeIsBadInputNamingTheOption) {
  std::ostringstream out;
  using Command = int (*)(const std::vector<std::string>&, std::ostream&);
  const std::vector<std::pair<Command, std::vector<std::string>>> calls = {
      {run_collective, {"--system", "dgx-h100", "--op", "all_reduce", "--gdr-level", "PIXX"}},
      {run_p2p, {"--system", "dgx-h100", "--gdr-level", "PIXX"}},
      {run_run,
       {std::string(RAILSIM_SOURCE_DIR) + "/scenarios/dgx-h100-2n.json", "--gdr-level", "PIXX"}}};
  for (const auto& [run, args] : calls) {
    try {
      run(args, out);
      ADD_FAILURE() << "no error for --gdr-level PIXX";
    } catch (const sim::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(
                    "--gdr-level: expected NCCL_NET_GDR_LEVEL's LOC, PIX, PXB, PHB, NODE or SYS"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace railsim::tools
