// File: tests/sim/flow_fixture.hpp
// A simulator and flow network with the bookkeeping engine tests share: flows started at given
// times, their completion records, and what each one crossed (for the byte-conservation check).
#pragma once

#include "tests/sim/network_check.hpp"

#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

namespace railsim::sim::testing {

class FlowFixture : public ::testing::Test {
 protected:
  LinkId link(double gbytes_per_second, Duration latency = Duration::zero()) {
    return net.add_link({gbytes_per_s(gbytes_per_second), latency, ""});
  }

  // Starts a flow at `when` (now if omitted) and remembers it under `tag`.
  void flow_at(Duration when, std::uint64_t tag, FlowSpec spec) {
    spec.tag = tag;
    crossed.push_back({spec.path, spec.size});
    sim.schedule_at(at(when), [this, spec = std::move(spec)]() mutable {
      spec.on_complete = [this](const FlowRecord& r) { done[r.tag] = r; };
      const std::uint64_t tag_of_flow = spec.tag;
      ids[tag_of_flow] = net.start_flow(std::move(spec));
    });
  }

  void run() {
    run_checked(sim, net);
    expect_bytes_conserved(net, crossed);
  }

  // Expects `t` within 2 ps of `seconds_expected` (rounding up of each drain adds < 1 ps).
  static void expect_at(SimTime t, double seconds_expected) {
    EXPECT_NEAR(static_cast<double>(t.time_since_epoch().count()), seconds_expected * 1e12, 2.0)
        << "got " << format_time(t);
  }

  Simulator sim;
  FlowNetwork net{sim};
  std::map<std::uint64_t, FlowRecord> done;
  std::map<std::uint64_t, FlowId> ids;
  std::vector<CrossedBytes> crossed;
};

inline FlowSpec spec(std::vector<LinkId> path, Bytes size) {
  FlowSpec s;
  s.path = std::move(path);
  s.size = size;
  return s;
}

}  // namespace railsim::sim::testing
