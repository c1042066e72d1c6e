// File: models/system/background_traffic.hpp
// Other jobs' traffic on a shared fabric: steady RDMA streams between pairs of nodes, each
// rail's NIC to the same rail's NIC, at a fraction of the port rate. They run for as long as
// the simulation does, so whatever shares their links (a spine uplink, a leaf) sees that much
// less room.
#pragma once

#include "models/system/system.hpp"
#include "sim/flow_network.hpp"

#include <string>
#include <vector>

namespace railsim::models {

struct BackgroundFlow {
  int from_node = 0;
  int to_node = 1;
  double load = 0.5;       // fraction of the NIC port's payload rate, in (0, 1]
  std::vector<int> rails;  // compute NIC indices (rails of an aligned cabling); empty: all
  std::string where;       // where it was written, for errors found when it starts
};

// Starts every stream: host memory to host memory through the NICs (as ib_write_bw without
// --use_cuda), each capped at load x the NIC's port rate, split over the routing's lanes.
// Throws sim::InputError, prefixed with `where`, for nodes or rails the system does not have.
void start_background(const System& system,
                      sim::FlowNetwork& network,
                      const std::vector<BackgroundFlow>& flows);

}  // namespace railsim::models
