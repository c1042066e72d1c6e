// File: tests/calibrate/parse/ibdev2netdev_test.cpp
// The ibdev2netdev parser against the two real listings of tests/data (values read from the raw
// text: their .json holds no rows) and against -v lines of the shapes mlx5 and mlx4 print.
#include "calibrate/parse/ibdev2netdev.hpp"

#include "tests/calibrate/fixture.hpp"

#include <gtest/gtest.h>

namespace railsim::calibrate::parse {
namespace {

// 11 ports, in ibdev2netdev's order (mlx5_10 sorts before mlx5_2); mlx5_1/2 are Down.
TEST(Ibdev2netdev, DgxH100ListingHasElevenPorts) {
  const Ibdev2netdevOutput output =
      parse_ibdev2netdev(test::fixture_text("ibdev2netdev_dgx-h100-cx7-ndr-ib_xxrjun-cnode3-011"));
  ASSERT_EQ(output.ports.size(), 11u);
  const Ibdev2netdevPort& first = output.ports[0];
  EXPECT_EQ(first.device, "mlx5_0");
  EXPECT_EQ(first.port, 1);
  EXPECT_EQ(first.netdev, "ibp24s0");
  EXPECT_TRUE(first.netdev_up);
  EXPECT_FALSE(first.details.has_value());
  EXPECT_EQ(first.line, 4);
  EXPECT_EQ(output.ports[1].netdev, "enp41s0f0np0");
  EXPECT_FALSE(output.ports[1].netdev_up);
  EXPECT_EQ(output.ports[2].device, "mlx5_10");
  EXPECT_EQ(output.ports[2].netdev, "ibp220s0");
  EXPECT_EQ(output.ports[10].device, "mlx5_9");
  EXPECT_EQ(output.ports[10].netdev, "ibp206s0");
}

// The RoCE host: 12 ports, two of them bonded (mlx5_3 and mlx5_9 -> bond0), two Down.
TEST(Ibdev2netdev, RoceListingHasTwelvePortsWithABond) {
  const Ibdev2netdevOutput output =
      parse_ibdev2netdev(test::fixture_text("ibdev2netdev_h100-roce-12nic_sglang-notes-aihub0007"));
  ASSERT_EQ(output.ports.size(), 12u);
  int bonded = 0;
  int down = 0;
  for (const Ibdev2netdevPort& port : output.ports) {
    bonded += port.netdev == "bond0" ? 1 : 0;
    down += port.netdev_up ? 0 : 1;
  }
  EXPECT_EQ(bonded, 2);
  EXPECT_EQ(down, 2);
  EXPECT_EQ(output.ports[0].line, 2);  // after the prompt line
}

TEST(Ibdev2netdev, VerboseLinesGiveAddressTypePartFirmwareAndPortState) {
  const TextInput input(
      "v.txt",
      "0000:0c:00.0 mlx5_0 (MT4123 - MCX653105A-HDAT) ConnectX-6 VPI adapter card, HDR IB "
      "(200Gb/s) and 200GbE, single-port QSFP56 fw 20.31.1014 port 1 (ACTIVE) ==> ib0 (Up)\n"
      "0000:02:00.5 mlx5_2 (MT4116 - NA)  fw 12.23.1020 port 1 (DOWN  ) ==> ib2 (Down)\n"
      "0000:b8:00.1 mlx5_13 (MT4123 - MCX653106A-ECAT) ConnectX-6 VPI fw 20.26.4012 port 1 "
      "(ACTIVE) ==> ib4 (Up) (o2ib)\n"
      "mlx4_0 (mt26428 - MT1037X01146) KESTREL        QDR             fw 2.9.1000 port 1 "
      "(ACTIVE) ==> ib0 (Up)\n");
  const Ibdev2netdevOutput output = parse_ibdev2netdev(input);
  ASSERT_EQ(output.ports.size(), 4u);
  const Ibdev2netdevDetails& cx6 = output.ports[0].details.value();
  EXPECT_EQ(output.ports[0].device, "mlx5_0");
  EXPECT_EQ(cx6.pci_address, "0000:0c:00.0");
  EXPECT_EQ(cx6.ca_type, "MT4123");
  EXPECT_EQ(cx6.part, "MCX653105A-HDAT");
  EXPECT_EQ(cx6.description,
            "ConnectX-6 VPI adapter card, HDR IB (200Gb/s) and 200GbE, single-port QSFP56");
  EXPECT_EQ(cx6.firmware, "20.31.1014");
  EXPECT_EQ(cx6.port_state, "ACTIVE");
  const Ibdev2netdevDetails& vf = output.ports[1].details.value();
  EXPECT_EQ(vf.part, "NA");
  EXPECT_EQ(vf.description, "");
  EXPECT_EQ(vf.port_state, "DOWN");
  EXPECT_FALSE(output.ports[1].netdev_up);
  EXPECT_EQ(output.ports[2].netdev, "ib4");
  EXPECT_EQ(output.ports[3].device, "mlx4_0");
  EXPECT_EQ(output.ports[3].details->pci_address, "");
  EXPECT_EQ(output.ports[3].details->description, "KESTREL        QDR");
}

}  // namespace
}  // namespace railsim::calibrate::parse
