// File: tests/sim/network_check.hpp
// Invariants every engine test checks after every event: the engine's rates are those of a full
// max-min solve of the whole network, no link carries more than its capacity (beyond 1e-9
// relative), and every flow has a bottleneck. run_checked() steps a simulation, checking after
// each event; expect_bytes_conserved() checks that each link carried exactly the bytes of the
// flows that crossed it.
#pragma once

#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

#include <vector>

namespace railsim::sim::testing {

void expect_invariants(const FlowNetwork& network);

// Runs the simulation to its end, checking the invariants after every event that leaves the
// network settled (its rates solved for the current instant).
void run_checked(Simulator& sim, const FlowNetwork& network);

struct CrossedBytes {
  std::vector<LinkId> path;
  Bytes size;
};

void expect_bytes_conserved(const FlowNetwork& network, const std::vector<CrossedBytes>& flows);

}  // namespace railsim::sim::testing
