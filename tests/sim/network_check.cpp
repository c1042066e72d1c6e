// File: tests/sim/network_check.cpp
// The engine invariants, checked against an independent full solve.
#include "tests/sim/network_check.hpp"

#include "tests/sim/max_min_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace railsim::sim::testing {

void expect_invariants(const FlowNetwork& network) {
  const NetworkSnapshot snap = network.snapshot();
  const std::vector<double> full = solve_max_min(snap.problem);
  double largest = 0.0;
  for (double c : snap.problem.link_capacity) {
    largest = std::max(largest, c);
  }
  for (std::size_t v = 0; v < full.size(); ++v) {
    ASSERT_NEAR(snap.rates[v], full[v], 1e-9 * largest)
        << "rate variable " << v << " differs from a full re-solve";
  }
  for (std::size_t l = 0; l < snap.problem.link_capacity.size(); ++l) {
    const double load = network.load(LinkId{static_cast<std::uint32_t>(l)}).bytes_per_s;
    ASSERT_LE(load, snap.problem.link_capacity[l] * (1.0 + 1e-9)) << "link " << l;
  }
  const std::vector<std::string> violations = max_min_violations(snap.problem, snap.rates);
  ASSERT_TRUE(violations.empty()) << violations.front();
}

void run_checked(Simulator& sim, const FlowNetwork& network) {
  std::size_t checked = 0;
  do {
    // Between a change and its re-solve at the same instant the rates are knowingly stale.
    if (network.settled()) {
      expect_invariants(network);
      ++checked;
    }
    if (::testing::Test::HasFatalFailure()) {
      return;
    }
  } while (sim.step());
  EXPECT_GT(checked, 0U);
}

void expect_bytes_conserved(const FlowNetwork& network, const std::vector<CrossedBytes>& flows) {
  std::vector<double> expected(network.link_count(), 0.0);
  for (const CrossedBytes& flow : flows) {
    for (LinkId link : flow.path) {
      expected[link.index] += static_cast<double>(flow.size.count);
    }
  }
  for (std::uint32_t l = 0; l < expected.size(); ++l) {
    EXPECT_NEAR(network.counters(LinkId{l}).bytes_carried, expected[l],
                1e-9 * std::max(1.0, expected[l]))
        << "link " << l;
  }
}

}  // namespace railsim::sim::testing
