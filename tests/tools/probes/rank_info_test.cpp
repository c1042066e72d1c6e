// File: tests/tools/probes/rank_info_test.cpp
// The fixed-size rank records of the AllGather, and the "Using devices" line they print as.
#include "tools/probes/rank_info.hpp"

#include "tools/probes/probe_run.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace railsim::tools::probes {
namespace {

TEST(RankInfo, RoundTrips) {
  const RankInfo info{13, 4180122, "cnode3-002", 5, "0000:9b:00", "NVIDIA H100 80GB HBM3"};
  EXPECT_EQ(decode_rank_info(encode_rank_info(info)), info);
}

TEST(RankInfo, OverlongNamesAreCutToFit) {
  const RankInfo info{1, 2, std::string(300, 'h'), 3, "0000:1b:00", std::string(300, 'm')};
  const RankInfo back = decode_rank_info(encode_rank_info(info));
  EXPECT_EQ(back.rank, 1);
  EXPECT_EQ(back.device, 3);
  EXPECT_EQ(back.bus_id, "0000:1b:00");
  EXPECT_TRUE(back.model.empty());
  EXPECT_FALSE(back.host.empty());
  EXPECT_EQ(back.host, std::string(back.host.size(), 'h'));
}

TEST(RankInfo, TabsInNamesDoNotBreakTheRecord) {
  const RankInfo info{0, 1, "a\tb", 0, "0000:1b:00", "GPU\tX"};
  const RankInfo back = decode_rank_info(encode_rank_info(info));
  EXPECT_EQ(back.host, "a b");
  EXPECT_EQ(back.model, "GPU X");
}

TEST(RankInfo, DamagedRecordIsAFailure) {
  std::array<std::byte, kRankInfoBytes> record{};
  EXPECT_THROW(decode_rank_info(record), ProbeFailure);
  record = encode_rank_info(RankInfo{});
  record[0] = std::byte{'x'};
  EXPECT_THROW(decode_rank_info(record), ProbeFailure);
}

TEST(RankInfo, PrintsAsNcclTestsRankLine) {
  std::ostringstream out;
  print_rank_line(out,
                  RankInfo{0, 2614280, "cnode3-002", 0, "0000:1b:00", "NVIDIA H100 80GB HBM3"});
  EXPECT_EQ(out.str(),
            "#  Rank  0 Group  0 Pid 2614280 on cnode3-002 device  0 [0000:1b:00] NVIDIA H100 "
            "80GB HBM3\n");
}

}  // namespace
}  // namespace railsim::tools::probes
