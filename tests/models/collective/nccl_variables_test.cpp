// File: tests/models/collective/nccl_variables_test.cpp
// NCCL's environment variables applied to a request as NCCL's environment documentation reads
// them: lists, '^' exclusions and per-function entries of NCCL_ALGO and NCCL_PROTO, the channel
// bounds, PXN, queue pairs, the GDR level and NCCL_IB_HCA on a DGX H100; what the model cannot
// apply is said, what changes no time is passed over.
#include "models/collective/nccl_variables.hpp"

#include "models/hardware/node_presets.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace railsim::models {
namespace {

struct Applied {
  CollectiveRequest request;
  SystemSpec system;
  NcclVariablesApplied said;
};

Applied apply(CollectiveOp op, const std::vector<NcclVariable>& variables) {
  Applied a;
  a.request.op = op;
  a.system.node = node_preset("dgx-h100");
  a.said = apply_nccl_variables(variables, a.request, a.system);
  return a;
}

TEST(NcclVariables, AlgorithmListsExclusionsAndPerFunctionEntries) {
  EXPECT_EQ(apply(CollectiveOp::kAllReduce, {{"NCCL_ALGO", "RING"}}).request.algorithm,
            AlgorithmSet(Algorithm::kRing));
  EXPECT_EQ(apply(CollectiveOp::kAllReduce, {{"NCCL_ALGO", "Tree,ring"}}).request.algorithm,
            AlgorithmSet(Algorithm::kRing, Algorithm::kTree));
  // "^NVLS,NVLSTree": every other algorithm.
  const std::vector<Algorithm> rest =
      apply(CollectiveOp::kAllReduce, {{"NCCL_ALGO", "^NVLS,NVLSTree"}}).request.algorithm.list();
  EXPECT_EQ(rest, (std::vector<Algorithm>{Algorithm::kRing, Algorithm::kTree, Algorithm::kPat,
                                          Algorithm::kCollNetDirect, Algorithm::kCollNetChain}));
  // "allreduce:tree;allgather:ring": each function its own; Broadcast keeps NCCL's choice.
  const std::vector<NcclVariable> per_function = {{"NCCL_ALGO", "allreduce:tree;allgather:ring"}};
  EXPECT_EQ(apply(CollectiveOp::kAllReduce, per_function).request.algorithm,
            AlgorithmSet(Algorithm::kTree));
  EXPECT_EQ(apply(CollectiveOp::kAllGather, per_function).request.algorithm,
            AlgorithmSet(Algorithm::kRing));
  const Applied broadcast = apply(CollectiveOp::kBroadcast, per_function);
  EXPECT_TRUE(broadcast.request.algorithm.empty());
  EXPECT_TRUE(broadcast.said.applied.empty());
  EXPECT_TRUE(broadcast.said.not_applied.empty());
  // Of "Ring,Tree" AllGather can run the ring only.
  EXPECT_EQ(apply(CollectiveOp::kAllGather, {{"NCCL_ALGO", "Ring,Tree"}}).request.algorithm,
            AlgorithmSet(Algorithm::kRing));
}

TEST(NcclVariables, AnAlgorithmTheOperationLacksOrAnUnknownNameIsNotApplied) {
  const Applied tree = apply(CollectiveOp::kAllGather, {{"NCCL_ALGO", "Tree"}});
  EXPECT_TRUE(tree.request.algorithm.empty());
  EXPECT_EQ(tree.said.not_applied,
            (std::vector<std::string>{"NCCL_ALGO=Tree: names no algorithm NCCL runs all_gather "
                                      "with"}));
  const Applied typo = apply(CollectiveOp::kAllReduce, {{"NCCL_ALGO", "Rign"}});
  EXPECT_TRUE(typo.request.algorithm.empty());
  ASSERT_EQ(typo.said.not_applied.size(), 1U);
  EXPECT_EQ(typo.said.not_applied[0].rfind("NCCL_ALGO=Rign: expected algorithms among", 0), 0U);
}

TEST(NcclVariables, OneProtocolIsForcedAndSeveralAreSaid) {
  EXPECT_EQ(apply(CollectiveOp::kAllReduce, {{"NCCL_PROTO", "ll128"}}).request.protocol,
            Protocol::kLl128);
  EXPECT_EQ(apply(CollectiveOp::kAllReduce, {{"NCCL_PROTO", "^LL,LL128"}}).request.protocol,
            Protocol::kSimple);
  const Applied two = apply(CollectiveOp::kAllReduce, {{"NCCL_PROTO", "^LL128"}});
  EXPECT_FALSE(two.request.protocol.has_value());
  EXPECT_EQ(two.said.not_applied,
            (std::vector<std::string>{"NCCL_PROTO=^LL128: the model forces one protocol or none"}));
}

TEST(NcclVariables, TheTunersSettingsPassOverThePointToPointOperations) {
  const Applied a =
      apply(CollectiveOp::kAllToAll,
            {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}, {"NCCL_NVLS_ENABLE", "0"}});
  EXPECT_TRUE(a.request.algorithm.empty());
  EXPECT_FALSE(a.request.protocol.has_value());
  EXPECT_TRUE(a.said.applied.empty());
  EXPECT_TRUE(a.said.not_applied.empty());
}

TEST(NcclVariables, NvlsOffTakesNvlsTreeWithIt) {
  const Applied a = apply(CollectiveOp::kAllReduce,
                          {{"NCCL_ALGO", "NVLS,NVLSTree,Ring"}, {"NCCL_NVLS_ENABLE", "0"}});
  EXPECT_EQ(a.request.algorithm, AlgorithmSet(Algorithm::kRing));
  const Applied only =
      apply(CollectiveOp::kAllReduce, {{"NCCL_ALGO", "NVLS"}, {"NCCL_NVLS_ENABLE", "0"}});
  EXPECT_EQ(only.said.not_applied,
            (std::vector<std::string>{"NCCL_NVLS_ENABLE=0: it leaves NCCL_ALGO no algorithm"}));
}

TEST(NcclVariables, ChannelBoundsForceACountOnlyWhenEqual) {
  const Applied equal =
      apply(CollectiveOp::kAllReduce, {{"NCCL_MIN_NCHANNELS", "4"}, {"NCCL_MAX_NCHANNELS", "4"}});
  EXPECT_EQ(equal.request.channels, 4);
  EXPECT_EQ(equal.said.applied,
            (std::vector<std::string>{"NCCL_MIN_NCHANNELS=4", "NCCL_MAX_NCHANNELS=4"}));
  // NCCL 2.x's older spelling.
  EXPECT_EQ(apply(CollectiveOp::kAllReduce, {{"NCCL_MIN_NRINGS", "2"}, {"NCCL_MAX_NRINGS", "2"}})
                .request.channels,
            2);
  const Applied max_only = apply(CollectiveOp::kAllReduce, {{"NCCL_MAX_NCHANNELS", "8"}});
  EXPECT_FALSE(max_only.request.channels.has_value());
  ASSERT_EQ(max_only.said.not_applied.size(), 1U);
  EXPECT_EQ(max_only.said.not_applied[0].rfind("NCCL_MAX_NCHANNELS=8: the model forces", 0), 0U);
}

TEST(NcclVariables, IntegersPxnQueuePairsAndTheLaterOfTwo) {
  const Applied a = apply(CollectiveOp::kAllToAll, {{"NCCL_IB_QPS_PER_CONNECTION", "2"},
                                                    {"NCCL_PXN_DISABLE", "1"},
                                                    {"NCCL_CROSS_NIC", "0"},
                                                    {"NCCL_NCHANNELS_PER_NET_PEER", "4"},
                                                    {"NCCL_IB_QPS_PER_CONNECTION", "8"}});
  EXPECT_EQ(a.request.qps_per_connection, 8);
  EXPECT_FALSE(a.request.pxn);
  EXPECT_EQ(a.request.cross_nic, 0);
  EXPECT_EQ(a.request.channels_per_net_peer, 4);
  EXPECT_TRUE(a.said.not_applied.empty());
  const Applied bad = apply(CollectiveOp::kAllReduce, {{"NCCL_IB_QPS_PER_CONNECTION", "0"}});
  EXPECT_EQ(bad.request.qps_per_connection, 1);
  EXPECT_EQ(bad.said.not_applied, (std::vector<std::string>{"NCCL_IB_QPS_PER_CONNECTION=0: "
                                                            "expected an integer from 1 to 128"}));
}

TEST(NcclVariables, PxnIsOnUnlessEitherVariableTurnsItOff) {
  // fabric-facts §2: NCCL_P2P_PXN_LEVEL 0 never, 1 only if needed, 2 (default) as much as
  // possible; NCCL_PXN_DISABLE=1 off whatever the level.
  EXPECT_FALSE(apply(CollectiveOp::kAllToAll, {{"NCCL_P2P_PXN_LEVEL", "0"}}).request.pxn);
  EXPECT_FALSE(
      apply(CollectiveOp::kAllToAll, {{"NCCL_P2P_PXN_LEVEL", "0"}, {"NCCL_PXN_DISABLE", "0"}})
          .request.pxn);
  EXPECT_FALSE(
      apply(CollectiveOp::kAllToAll, {{"NCCL_PXN_DISABLE", "1"}, {"NCCL_P2P_PXN_LEVEL", "2"}})
          .request.pxn);
  EXPECT_TRUE(apply(CollectiveOp::kAllToAll, {{"NCCL_P2P_PXN_LEVEL", "2"}}).request.pxn);
  const Applied one = apply(CollectiveOp::kSendRecv, {{"NCCL_P2P_PXN_LEVEL", "1"}});
  EXPECT_TRUE(one.request.pxn);
  EXPECT_EQ(one.said.not_applied,
            (std::vector<std::string>{"NCCL_P2P_PXN_LEVEL=1: level 1 (PXN only where needed) is "
                                      "not modelled: predicted at 2"}));
  // The level is the point-to-point calls' alone.
  const Applied ring = apply(CollectiveOp::kAllReduce, {{"NCCL_P2P_PXN_LEVEL", "0"}});
  EXPECT_TRUE(ring.request.pxn);
  EXPECT_TRUE(ring.said.applied.empty());
}

TEST(NcclVariables, TheGdrLevelAndTheNicsGoToTheSystem) {
  const Applied a = apply(CollectiveOp::kAllReduce,
                          {{"NCCL_NET_GDR_LEVEL", "SYS"}, {"NCCL_IB_HCA", "=mlx5_0,mlx5_3"}});
  EXPECT_EQ(a.system.gdr_level, PathClass::kSys);
  ASSERT_TRUE(a.system.ib_hca.has_value());
  EXPECT_EQ(a.system.ib_hca->text, "=mlx5_0,mlx5_3");
  // Names the design has none of: NCCL would find no device; the design's NICs stay.
  const Applied none = apply(CollectiveOp::kAllReduce, {{"NCCL_IB_HCA", "ibp"}});
  EXPECT_FALSE(none.system.ib_hca.has_value());
  ASSERT_EQ(none.said.not_applied.size(), 1U);
  EXPECT_EQ(none.said.not_applied[0].rfind("NCCL_IB_HCA=ibp: ", 0), 0U);
}

TEST(NcclVariables, WhatChangesNoTimeIsPassedOverAndTheRestIsSaid) {
  const Applied a = apply(CollectiveOp::kAllReduce, {{"NCCL_DEBUG", "INFO"},
                                                     {"NCCL_SOCKET_IFNAME", "eth0"},
                                                     {"NCCL_IB_GID_INDEX", "3"},
                                                     {"NCCL_BUFFSIZE", "8388608"}});
  EXPECT_TRUE(a.said.applied.empty());
  EXPECT_EQ(a.said.not_applied,
            (std::vector<std::string>{
                "NCCL_BUFFSIZE=8388608: not modelled: predicted with NCCL's default"}));
}

}  // namespace
}  // namespace railsim::models
