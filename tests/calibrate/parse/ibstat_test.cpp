// File: tests/calibrate/parse/ibstat_test.cpp
// The ibstat parser against the real 12-CA listing of tests/data (values read from the raw
// text; its .json describes the host but holds no rows).
#include "calibrate/parse/ibstat.hpp"

#include "tests/calibrate/fixture.hpp"

#include <gtest/gtest.h>

namespace railsim::calibrate::parse {
namespace {

constexpr const char* kStem = "ibstat_cx7-ndr-ib+cx6dx-eth_mooncake-issue2039";

// 8 CX-7 (MT4129) at Rate 400 on InfiniBand; 4 CX-6 Dx (MT4125) on Ethernet: mlx5_1/2 Down at
// 40, mlx5_7/8 Active at 100.
TEST(Ibstat, TwelveCasOfTwoKinds) {
  const IbstatOutput output = parse_ibstat(test::fixture_text(kStem));
  ASSERT_EQ(output.cas.size(), 12u);
  int infiniband = 0;
  for (const IbstatCa& ca : output.cas) {
    ASSERT_EQ(ca.ports.size(), 1u) << ca.name;
    const IbstatPort& port = ca.ports[0];
    if (ca.ca_type == "MT4129") {
      ++infiniband;
      EXPECT_EQ(port.link_layer, "InfiniBand") << ca.name;
      EXPECT_DOUBLE_EQ(port.rate_gbps, 400.0) << ca.name;
      EXPECT_EQ(port.state, "Active") << ca.name;
      EXPECT_EQ(port.sm_lid, 1024) << ca.name;
    } else {
      EXPECT_EQ(ca.ca_type, "MT4125") << ca.name;
      EXPECT_EQ(port.link_layer, "Ethernet") << ca.name;
      EXPECT_EQ(ca.firmware, "22.38.1002") << ca.name;
    }
  }
  EXPECT_EQ(infiniband, 8);
  const IbstatCa& first = output.cas[0];
  EXPECT_EQ(first.name, "mlx5_0");
  EXPECT_EQ(first.port_count, 1);
  EXPECT_EQ(first.firmware, "28.41.1000");
  EXPECT_EQ(first.node_guid, "0x58a2e103001b2576");
  EXPECT_EQ(first.ports[0].physical_state, "LinkUp");
  EXPECT_EQ(first.ports[0].base_lid, 287);
  EXPECT_EQ(first.ports[0].capability_mask, "0xa751e848");
  EXPECT_EQ(first.ports[0].line, 8);
  const IbstatCa& down = output.cas[1];
  EXPECT_EQ(down.name, "mlx5_1");
  EXPECT_EQ(down.ports[0].state, "Down");
  EXPECT_EQ(down.ports[0].physical_state, "Disabled");
  EXPECT_DOUBLE_EQ(down.ports[0].rate_gbps, 40.0);
  EXPECT_EQ(output.cas[2].name, "mlx5_10");
  EXPECT_EQ(output.cas[9].name, "mlx5_7");
  EXPECT_DOUBLE_EQ(output.cas[9].ports[0].rate_gbps, 100.0);
  EXPECT_EQ(output.cas[9].ports[0].state, "Active");
}

}  // namespace
}  // namespace railsim::calibrate::parse
