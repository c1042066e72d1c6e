// File: tests/sim/flow_group_test.cpp
// Flow groups: the stages of one pipeline advance at one rate, set by the most constrained
// stage, and the capacity they leave goes to other flows. Expected values derived by hand.
#include "tests/sim/flow_fixture.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

namespace railsim::sim::testing {
namespace {

using FlowGroupTest = FlowFixture;

FlowSpec member(GroupId group, std::vector<LinkId> path, Bytes size) {
  FlowSpec s = spec(std::move(path), size);
  s.group = group;
  return s;
}

TEST_F(FlowGroupTest, MembersFinishTogetherAtTheSlowestStagesRate) {
  // A three-stage pipeline on links of 100, 100 and 40: the group runs at 40 (stage 3 alone on
  // its link). A flow g (9 GB) shares stage 1's link and gets the spare 100 - 40 = 60.
  // Each stage moves 4 GB: all drain at 4 / 40 = 0.1 s. g has sent 6 GB by then; its last 3 GB
  // go alone at 100 in 0.03 s: 0.13 s.
  const LinkId l1 = link(100);
  const LinkId l2 = link(100);
  const LinkId l3 = link(40);
  const GroupId group = net.create_group();
  flow_at(us(0), 1, member(group, {l1}, gb(4)));
  flow_at(us(0), 2, member(group, {l2}, gb(4)));
  flow_at(us(0), 3, member(group, {l3}, gb(4)));
  flow_at(us(0), 9, spec({l1}, gb(9)));
  sim.run_until(at(ms(1)));
  for (std::uint64_t m = 1; m <= 3; ++m) {
    EXPECT_NEAR(net.rate(ids[m]).in_gbytes_per_s(), 40.0, 1e-9);
  }
  EXPECT_NEAR(net.rate(ids[9]).in_gbytes_per_s(), 60.0, 1e-9);
  run();
  for (std::uint64_t m = 1; m <= 3; ++m) {
    expect_at(done[m].drained, 0.1);
  }
  expect_at(done[9].drained, 0.13);
}

TEST_F(FlowGroupTest, GroupPaysForEveryStageOnASharedLink) {
  // Two stages of one group cross a 90 GB/s link, as does flow f: at level t the link carries
  // 2t (the group) + t (f) = 90, so t = 30 for both, and the group's stages each move 30.
  const LinkId shared = link(90);
  const LinkId a = link(1000);
  const LinkId b = link(1000);
  const GroupId group = net.create_group();
  flow_at(us(0), 1, member(group, {shared, a}, gb(3)));
  flow_at(us(0), 2, member(group, {shared, b}, gb(3)));
  flow_at(us(0), 3, spec({shared}, gb(3)));
  sim.run_until(at(ms(1)));
  EXPECT_NEAR(net.rate(ids[1]).in_gbytes_per_s(), 30.0, 1e-9);
  EXPECT_NEAR(net.rate(ids[3]).in_gbytes_per_s(), 30.0, 1e-9);
  EXPECT_NEAR(net.load(shared).in_gbytes_per_s(), 90.0, 1e-9);
  run();
  expect_at(done[3].drained, 0.1);
  expect_at(done[1].drained, 0.1);
}

TEST_F(FlowGroupTest, MemberJoiningLaterSlowsTheGroupUntilItDrains) {
  // Link 100. Stage m1 (100 GB) alone: 100. At 0.5 s stage m2 (10 GB) joins on the same link:
  // the group pays 2r = 100, r = 50. m1 has 50 GB left; m2 drains at 0.5 + 10/50 = 0.7 s,
  // when m1 has 40 GB left; alone again at 100: 0.4 s more, 1.1 s.
  const LinkId l = link(100);
  const GroupId group = net.create_group();
  flow_at(us(0), 1, member(group, {l}, gb(100)));
  flow_at(ms(500), 2, member(group, {l}, gb(10)));
  run();
  expect_at(done[2].drained, 0.7);
  expect_at(done[1].drained, 1.1);
  EXPECT_NEAR(net.counters(l).bytes_carried, 110e9, 110e9 * 1e-9);
}

TEST_F(FlowGroupTest, GroupWeightAndCapApplyToTheWholeGroup) {
  // Link 90: a group of weight 2 (one stage) and a plain flow share it 2:1, 60 and 30.
  // On a second link of 100, a group capped at 10 leaves 90 to the plain flow there.
  const LinkId l = link(90);
  const LinkId m = link(100);
  const GroupId heavy = net.create_group(2.0);
  const GroupId capped = net.create_group(1.0, gbytes_per_s(10));
  flow_at(us(0), 1, member(heavy, {l}, gb(6)));
  flow_at(us(0), 2, spec({l}, gb(6)));
  flow_at(us(0), 3, member(capped, {m}, gb(1)));
  flow_at(us(0), 4, spec({m}, gb(9)));
  sim.run_until(at(ms(1)));
  EXPECT_NEAR(net.rate(ids[1]).in_gbytes_per_s(), 60.0, 1e-9);
  EXPECT_NEAR(net.rate(ids[2]).in_gbytes_per_s(), 30.0, 1e-9);
  EXPECT_NEAR(net.rate(ids[3]).in_gbytes_per_s(), 10.0, 1e-9);
  EXPECT_NEAR(net.rate(ids[4]).in_gbytes_per_s(), 90.0, 1e-9);
  run();
  expect_at(done[1].drained, 0.1);               // 6 GB at 60
  expect_at(done[3].drained, 0.1);               // 1 GB at 10
  expect_at(done[4].drained, 0.1);               // 9 GB at 90
  expect_at(done[2].drained, 0.1 + 1.0 / 30.0);  // 3 GB by 0.1 s, then 3 GB alone at 90
}

TEST_F(FlowGroupTest, MemberCapCapsTheGroup) {
  // Two stages on links of 100 each; one stage capped at 20: the whole group runs at 20.
  const LinkId a = link(100);
  const LinkId b = link(100);
  const GroupId group = net.create_group();
  FlowSpec slow = member(group, {b}, gb(2));
  slow.rate_cap = gbytes_per_s(20);
  flow_at(us(0), 1, member(group, {a}, gb(2)));
  flow_at(us(0), 2, slow);
  run();
  expect_at(done[1].drained, 0.1);
  expect_at(done[2].drained, 0.1);
}

TEST_F(FlowGroupTest, GroupSpeedsUpWhenItsCappedMemberDrains) {
  // Stages on two links of 100; stage 2 (1 GB) is capped at 20, so both run at 20. Stage 2
  // drains at 0.05 s, when stage 1 (10 GB) has sent 1 GB; uncapped, it sends the other 9 GB at
  // 100 in 0.09 s: 0.14 s.
  const LinkId a = link(100);
  const LinkId b = link(100);
  const GroupId group = net.create_group();
  FlowSpec slow = member(group, {b}, gb(1));
  slow.rate_cap = gbytes_per_s(20);
  flow_at(us(0), 1, member(group, {a}, gb(10)));
  flow_at(us(0), 2, slow);
  run();
  expect_at(done[2].drained, 0.05);
  expect_at(done[1].drained, 0.14);
}

TEST_F(FlowGroupTest, ManyGroupsOverManySharedLinksAsAdaptiveRoutingLanes) {
  // 70 groups of 70 members, member j of every group on spine link j (70 GB/s) and on its
  // group's own link: each group crosses 71 links and each spine is crossed by 70 groups, past
  // the length find_crossing scans (it indexes such a group's links). By symmetry every group
  // runs at 1 GB/s. The last group's member 0 (0.5 GB) leaves at 0.5 s, which leaves spine 0
  // short of its bound but no group faster (each still crosses 69 full spines). At 0.75 s a
  // 0.25 GB member joins the last group on spine 69 and its own link: spine 69 carries 71
  // crossings, so every group runs at 70 / 71 GB/s and all the rest (0.25 GB each) drain at
  // 0.75 + 0.25 x 71 / 70 s.
  constexpr int kGroups = 70;
  std::vector<LinkId> spines;
  for (int j = 0; j < kGroups; ++j) {
    spines.push_back(link(70));
  }
  LinkId own;
  GroupId group;
  for (int g = 0; g < kGroups; ++g) {
    own = link(1e6);
    group = net.create_group();
    for (int j = 0; j < kGroups; ++j) {
      const Bytes size = g == kGroups - 1 && j == 0 ? bytes(500'000'000) : gb(1);
      flow_at(us(0), static_cast<std::uint64_t>(g * kGroups + j),
              member(group, {spines[static_cast<std::size_t>(j)], own}, size));
    }
  }
  constexpr std::uint64_t kLate = kGroups * kGroups;
  flow_at(ms(750), kLate, member(group, {spines.back(), own}, bytes(250'000'000)));
  run();
  const double end = 0.75 + 0.25 * 71.0 / 70.0;
  expect_at(done[(kGroups - 1) * kGroups].drained, 0.5);
  expect_at(done[kLate].drained, end);
  for (std::uint64_t f = 0; f < kLate; ++f) {
    if (f != (kGroups - 1) * kGroups) {
      expect_at(done[f].drained, end);
    }
  }
}

TEST_F(FlowGroupTest, EmptiedGroupCanBeReused) {
  // A group drains, then a new stage joins it alone on 50 GB/s: 1 GB in 20 ms.
  const LinkId l = link(50);
  const GroupId group = net.create_group();
  flow_at(us(0), 1, member(group, {l}, gb(1)));
  flow_at(ms(100), 2, member(group, {l}, gb(1)));
  run();
  expect_at(done[1].drained, 0.02);
  expect_at(done[2].drained, 0.12);
}

TEST_F(FlowGroupTest, MemberMayNotCarryItsOwnWeight) {
  const LinkId l = link(10);
  const GroupId group = net.create_group();
  FlowSpec weighted = member(group, {l}, mb(1));
  weighted.weight = 2.0;
  EXPECT_THROW(net.start_flow(weighted), InputError);
  EXPECT_THROW(net.create_group(0.0), InputError);
  EXPECT_THROW(net.create_group(1.0, bytes_per_s(0.0)), InputError);
}

}  // namespace
}  // namespace railsim::sim::testing
