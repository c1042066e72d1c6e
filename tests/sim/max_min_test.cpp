// File: tests/sim/max_min_test.cpp
// The pure max-min solver: textbook cases with rates worked out by hand in each comment, the
// brute-force reference on random problems, and the fairness properties under rapidcheck.
#include "sim/max_min.hpp"

#include "tests/sim/max_min_check.hpp"
#include "tests/sim/max_min_reference.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <random>

namespace railsim::sim {
namespace {

using testing::max_min_violations;
using testing::reference_max_min;

void expect_rates(const SharingProblem& problem, const std::vector<double>& expected) {
  const std::vector<double> rates = solve_max_min(problem);
  ASSERT_EQ(rates.size(), expected.size());
  for (std::size_t f = 0; f < rates.size(); ++f) {
    EXPECT_NEAR(rates[f], expected[f], 1e-9 * std::max(1.0, expected[f])) << "flow " << f;
  }
  EXPECT_TRUE(max_min_violations(problem, rates).empty());
}

TEST(MaxMin, OneFlowOnOneLinkGetsTheWholeLink) {
  // One link of 10, one flow: it gets 10.
  expect_rates({{10.0}, {{{0}}}}, {10.0});
}

TEST(MaxMin, NEqualFlowsOnOneLinkGetCOverNEach) {
  // One link of 12 shared by 1, 2, 3, 4 flows: 12/n each.
  for (int n = 1; n <= 4; ++n) {
    SharingProblem problem{{12.0}, {}};
    for (int f = 0; f < n; ++f) {
      problem.flows.push_back({{0}});
    }
    expect_rates(problem, std::vector<double>(static_cast<std::size_t>(n), 12.0 / n));
  }
}

TEST(MaxMin, TwoFlowsOnOneLinkGetHalfEach) {
  expect_rates({{100.0}, {{{0}}, {{0}}}}, {50.0, 50.0});
}

TEST(MaxMin, NarrowLinkFreezesItsFlowsFirst) {
  // Links A = 10, B = 4. Flow 0 on A; flow 1 on A and B; flow 2 on B.
  // B fills first at level 2 (flows 1 and 2 get 2 each); A has 10 - 2 = 8 left for flow 0.
  expect_rates({{10.0, 4.0}, {{{0}}, {{0, 1}}, {{1}}}}, {8.0, 2.0, 2.0});
}

TEST(MaxMin, ParkingLotGivesTheLongFlowTheSameShareAsEachShortOne) {
  // Three links of 1 in a chain; flow 0 crosses all three, flows 1..3 one link each.
  // Every link has two flows: 1/2 each, so the long flow gets 1/2 too.
  expect_rates({{1.0, 1.0, 1.0}, {{{0, 1, 2}}, {{0}}, {{1}}, {{2}}}}, {0.5, 0.5, 0.5, 0.5});
}

TEST(MaxMin, ParkingLotWithOneWideLinkLetsTheShortFlowThereTakeTheRest) {
  // Links 1, 1, 3; flow 0 on all three; flows 1, 2, 3 on one link each.
  // Links 0 and 1 fill at 1/2 (flow 0 frozen at 1/2); link 2 then has 3 - 1/2 = 5/2 for flow 3.
  expect_rates({{1.0, 1.0, 3.0}, {{{0, 1, 2}}, {{0}}, {{1}}, {{2}}}}, {0.5, 0.5, 0.5, 2.5});
}

TEST(MaxMin, CappedFlowLeavesItsShareToTheOthers) {
  // Link of 30; flow 0 capped at 5, flows 1 and 2 uncapped: (30 - 5) / 2 = 12.5 each.
  SharingProblem problem{{30.0}, {{{0}, 1.0, 5.0}, {{0}}, {{0}}}};
  expect_rates(problem, {5.0, 12.5, 12.5});
}

TEST(MaxMin, CapAboveTheFairShareDoesNotBind) {
  // Link of 30, three flows, one capped at 20 > 10: all get 10.
  expect_rates({{30.0}, {{{0}, 1.0, 20.0}, {{0}}, {{0}}}}, {10.0, 10.0, 10.0});
}

TEST(MaxMin, WeightsSplitABottleneckInProportion) {
  // Link of 100, weights 1 and 3: 25 and 75.
  expect_rates({{100.0}, {{{0}, 1.0}, {{0}, 3.0}}}, {25.0, 75.0});
}

TEST(MaxMin, RepeatedLinkIsChargedOncePerCrossing) {
  // Link of 90; flow 0 crosses it twice (a group with two stages on it), flow 1 once.
  // At level t the link carries 2t + t = 3t, full at t = 30: both run at 30.
  expect_rates({{90.0}, {{{0, 0}}, {{0}}}}, {30.0, 30.0});
}

TEST(MaxMin, ALinkListedOnceWithItsCountIsChargedThatManyTimes) {
  // The compressed view: links A (90) and B (50). Flow 0 crosses A 3 times (listed once, count
  // 3), flow 1 A once and B twice, flow 2 B once. At level t, A carries 3t + t = 4t (full at
  // 22.5) and B 2t + t = 3t (full at 16.67): B fills first, flows 1 and 2 freeze at 50 / 3;
  // A then has 90 - 50 / 3 left for flow 0's three crossings: (90 - 50 / 3) / 3 = 24.44.
  const std::vector<double> capacity = {90.0, 50.0};
  const std::vector<std::uint32_t> offsets = {0, 1, 3, 4};
  const std::vector<LinkIndex> links = {0, 0, 1, 1};
  const std::vector<std::uint32_t> times = {3, 1, 2, 1};
  const std::vector<double> weights = {1.0, 1.0, 1.0};
  const std::vector<double> caps = {kUnbounded, kUnbounded, kUnbounded};
  std::vector<double> rates(3, 0.0);
  MaxMinSolver solver;
  solver.solve(SharingProblemView{capacity, offsets, links, times, weights, caps}, rates);
  EXPECT_NEAR(rates[0], (90.0 - 50.0 / 3.0) / 3.0, 1e-9);
  EXPECT_NEAR(rates[1], 50.0 / 3.0, 1e-9);
  EXPECT_NEAR(rates[2], 50.0 / 3.0, 1e-9);
}

TEST(MaxMin, FlowWithoutLinksGetsItsCap) {
  expect_rates({{10.0}, {{{}, 1.0, 7.0}, {{0}}}}, {7.0, 10.0});
  const std::vector<double> rates = solve_max_min({{10.0}, {{{}}}});
  EXPECT_TRUE(std::isinf(rates[0]));
}

TEST(MaxMin, EmptyProblemHasNoRates) { EXPECT_TRUE(solve_max_min({}).empty()); }

TEST(MaxMin, RejectsBadProblems) {
  EXPECT_THROW((void)solve_max_min({{10.0}, {{{1}}}}), InputError);            // dangling link
  EXPECT_THROW((void)solve_max_min({{-1.0}, {{{0}}}}), InputError);            // capacity < 0
  EXPECT_THROW((void)solve_max_min({{10.0}, {{{0}, 0.0}}}), InputError);       // weight 0
  EXPECT_THROW((void)solve_max_min({{10.0}, {{{0}, 1.0, 0.0}}}), InputError);  // cap 0
  EXPECT_THROW((void)solve_max_min({{NAN}, {{{0}}}}), InputError);
}

// A random small problem: up to 6 links, up to 8 flows of 1-3 links, some capped or weighted.
SharingProblem random_problem(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> link_count(1, 6);
  std::uniform_int_distribution<int> flow_count(1, 8);
  std::uniform_real_distribution<double> capacity(1.0, 100.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  SharingProblem problem;
  const int links = link_count(rng);
  for (int l = 0; l < links; ++l) {
    problem.link_capacity.push_back(capacity(rng));
  }
  std::uniform_int_distribution<LinkIndex> pick(0, static_cast<LinkIndex>(links - 1));
  std::uniform_int_distribution<int> path_length(1, 3);
  const int flows = flow_count(rng);
  for (int f = 0; f < flows; ++f) {
    FlowDemand flow;
    const int length = path_length(rng);
    for (int k = 0; k < length; ++k) {
      flow.links.push_back(pick(rng));
    }
    if (unit(rng) < 0.3) {
      flow.rate_cap = capacity(rng) / 2.0;
    }
    if (unit(rng) < 0.3) {
      flow.weight = 0.5 + 3.0 * unit(rng);
    }
    problem.flows.push_back(std::move(flow));
  }
  return problem;
}

TEST(MaxMin, AgreesWithTheBruteForceReferenceOnRandomProblems) {
  std::mt19937_64 rng(20261201);
  for (int trial = 0; trial < 500; ++trial) {
    const SharingProblem problem = random_problem(rng);
    const std::vector<double> rates = solve_max_min(problem);
    const std::vector<double> expected = reference_max_min(problem);
    for (std::size_t f = 0; f < rates.size(); ++f) {
      ASSERT_NEAR(rates[f], expected[f], 1e-9 * 100.0) << "trial " << trial << " flow " << f;
    }
    ASSERT_TRUE(max_min_violations(problem, rates).empty()) << "trial " << trial;
  }
}

// rapidcheck: an arbitrary problem, drawn inside a property so rapidcheck can shrink it.
SharingProblem arbitrary_problem() {
  const auto links = *rc::gen::inRange<LinkIndex>(1, 7);
  SharingProblem problem;
  for (LinkIndex l = 0; l < links; ++l) {
    problem.link_capacity.push_back(*rc::gen::inRange(1, 1000) * 0.1);
  }
  const auto flows = *rc::gen::inRange(0, 10);
  for (int f = 0; f < flows; ++f) {
    FlowDemand flow;
    flow.links = *rc::gen::container<std::vector<LinkIndex>>(*rc::gen::inRange<std::size_t>(1, 4),
                                                             rc::gen::inRange<LinkIndex>(0, links));
    flow.weight = *rc::gen::inRange(1, 8) * 0.5;
    if (*rc::gen::inRange(0, 4) == 0) {
      flow.rate_cap = *rc::gen::inRange(1, 500) * 0.1;
    }
    problem.flows.push_back(std::move(flow));
  }
  return problem;
}

RC_GTEST_PROP(MaxMinProperty, NoLinkOverCapacityAndEveryFlowHasABottleneck, ()) {
  const SharingProblem problem = arbitrary_problem();
  const std::vector<double> rates = solve_max_min(problem);
  const std::vector<std::string> violations = max_min_violations(problem, rates);
  RC_ASSERT(violations.empty());
}

RC_GTEST_PROP(MaxMinProperty, ScalingCapacitiesAndCapsScalesRates, ()) {
  // Max-min fairness is homogeneous: multiply every capacity and cap by k, every rate scales by k.
  SharingProblem problem = arbitrary_problem();
  const double k = *rc::gen::element(0.25, 2.0, 8.0);
  const std::vector<double> base = solve_max_min(problem);
  for (double& c : problem.link_capacity) {
    c *= k;
  }
  for (FlowDemand& flow : problem.flows) {
    flow.rate_cap *= k;
  }
  const std::vector<double> scaled = solve_max_min(problem);
  for (std::size_t f = 0; f < base.size(); ++f) {
    RC_ASSERT(std::fabs(scaled[f] - k * base[f]) <= 1e-9 * std::max(1.0, k * base[f]));
  }
}

}  // namespace
}  // namespace railsim::sim
