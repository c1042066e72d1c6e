// File: tests/models/system/ib_hca_test.cpp
// NCCL_IB_HCA as NCCL's environment documentation gives it: prefixes unless "=", exclusion
// after "^", ":PORT" per device; bad lists are input errors.
#include "models/system/ib_hca.hpp"

#include "models/hardware/node_presets.hpp"
#include "sim/input_error.hpp"

#include <gtest/gtest.h>

namespace railsim::models {
namespace {

TEST(IbHca, NamesArePrefixesUnlessExact) {
  // NCCL's documented trap: "mlx5_1" also selects mlx5_10 and mlx5_11.
  const IbHcaFilter prefix = parse_ib_hca("mlx5_1");
  EXPECT_TRUE(ib_hca_allows(prefix, "mlx5_1"));
  EXPECT_TRUE(ib_hca_allows(prefix, "mlx5_10"));
  EXPECT_FALSE(ib_hca_allows(prefix, "mlx5_2"));
  const IbHcaFilter exact = parse_ib_hca("=mlx5_1,mlx5_4");
  EXPECT_TRUE(ib_hca_allows(exact, "mlx5_4"));
  EXPECT_FALSE(ib_hca_allows(exact, "mlx5_10"));
}

TEST(IbHca, ACaretListsWhatNotToUse) {
  const IbHcaFilter filter = parse_ib_hca("^=mlx5_1,mlx5_4");
  EXPECT_FALSE(ib_hca_allows(filter, "mlx5_1"));
  EXPECT_TRUE(ib_hca_allows(filter, "mlx5_10"));
  EXPECT_TRUE(ib_hca_allows(filter, "mlx5_0"));
}

TEST(IbHca, AModelledNicIsPortOne) {
  const IbHcaFilter filter = parse_ib_hca("=mlx5_0:1,mlx5_3:2");
  EXPECT_TRUE(ib_hca_allows(filter, "mlx5_0"));
  EXPECT_FALSE(ib_hca_allows(filter, "mlx5_3"));
}

TEST(IbHca, ANicOfARackIsMatchedByItsTraysName) {
  // gb200-nvl72 names tray 3's mlx5_1 "t3-mlx5_1"; each tray's system calls it mlx5_1.
  const NodeSpec rack = node_preset("gb200-nvl72");
  EXPECT_TRUE(ib_hca_allows(parse_ib_hca("=mlx5_1"), rack.nics[13]));
  EXPECT_FALSE(ib_hca_allows(parse_ib_hca("=mlx5_0"), rack.nics[13]));
}

TEST(IbHca, BadListsAndListsThatLeaveNoNicAreInputErrors) {
  EXPECT_THROW(parse_ib_hca(""), sim::InputError);
  EXPECT_THROW(parse_ib_hca("mlx5_0,"), sim::InputError);
  EXPECT_THROW(parse_ib_hca("^"), sim::InputError);
  EXPECT_THROW(parse_ib_hca("mlx5_0:x"), sim::InputError);
  EXPECT_THROW(parse_ib_hca("mlx5_0:0"), sim::InputError);
  const NodeSpec dgx = node_preset("dgx-h100");
  EXPECT_NO_THROW(check_ib_hca(parse_ib_hca("mlx5_0"), dgx));
  // mlx5_1 and mlx5_2 are dgx-h100's storage NICs: no compute NIC is left.
  try {
    check_ib_hca(parse_ib_hca("=mlx5_1,mlx5_2"), dgx);
    ADD_FAILURE() << "no error";
  } catch (const sim::InputError& e) {
    EXPECT_STREQ(e.what(),
                 "NCCL_IB_HCA '=mlx5_1,mlx5_2' leaves NCCL none of dgx-h100's compute NICs "
                 "(mlx5_0, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_9, mlx5_10, mlx5_11)");
  }
}

}  // namespace
}  // namespace railsim::models
