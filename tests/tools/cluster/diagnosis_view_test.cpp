// File: tests/tools/cluster/diagnosis_view_test.cpp
// How diagnose lists a ranking: a group of many explanations the measurements cannot tell apart
// shows its first kListedMembers, then one line counting the rest by kind and by the nodes they
// lie on, named where they are few.
#include "tools/cluster/diagnosis_view.hpp"

#include "models/scenario/system_file.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace railsim::tools {
namespace {

using calibrate::diagnose::Explanation;
using models::ElementFault;
using models::FaultKind;

Explanation of(std::vector<ElementFault> faults, int group) {
  Explanation e;
  e.faults = std::move(faults);
  e.predicted = {1.0};
  e.group = group;
  return e;
}

ElementFault swap(int node) { return {FaultKind::kCablesSwapped, node, 0, 1.0, 4}; }

ElementFault port(int node) { return {FaultKind::kNicPort, node, 2, 0.75}; }

TEST(DiagnosisView, AGroupOfManyShowsItsFirstAndCountsTheRestByKindAndNode) {
  DiagnosisView view;
  view.system = models::scenario::system_from_argument("dgx-h100").system;
  view.diagnosis.measurements.resize(1);
  std::vector<Explanation>& ranked = view.diagnosis.ranked;
  ranked.push_back(of({}, 0));
  // Group 1: six swaps on nodes 0-2 and two ports shown; then four swaps on nodes 3 and 4, two
  // ports on node 5 and a pair.
  for (const int node : {0, 0, 1, 1, 2, 2}) {
    ranked.push_back(of({swap(node)}, 1));
  }
  ranked.push_back(of({port(3)}, 1));
  ranked.push_back(of({port(4)}, 1));
  for (const int node : {3, 3, 4, 4}) {
    ranked.push_back(of({swap(node)}, 1));
  }
  ranked.push_back(of({port(5)}, 1));
  ranked.push_back(of({port(5)}, 1));
  ranked.push_back(of({port(6), swap(7)}, 1));
  ranked.push_back(of({port(1)}, 2));  // past --top 2

  const std::vector<ListedGroup> groups = view.listed_groups(2);
  ASSERT_EQ(groups.size(), 2U);
  ASSERT_EQ(groups[0].shown.size(), 1U);
  EXPECT_TRUE(groups[0].shown[0]->faults.empty());
  EXPECT_EQ(groups[0].more, "");
  ASSERT_EQ(groups[1].shown.size(), kListedMembers);
  EXPECT_EQ(groups[1].shown.front(), &ranked[1]);
  EXPECT_EQ(groups[1].shown.back(), &ranked[8]);
  EXPECT_EQ(groups[1].more,
            "7 more alike: 4 cable swaps on n3 and n4, 2 ports on n5, 1 pair of faults");
  // Past three nodes they are counted; with the cluster's names, named so.
  for (const int node : {6, 7}) {
    ranked.insert(ranked.begin() + 9, of({swap(node)}, 1));
  }
  view.hosts = {"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"};
  EXPECT_EQ(view.listed_groups(2)[1].more,
            "9 more alike: 6 cable swaps on 4 nodes, 2 ports on a5, 1 pair of faults");
}

}  // namespace
}  // namespace railsim::tools
