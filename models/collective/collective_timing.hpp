// File: models/collective/collective_timing.hpp
// CollectiveTiming: NCCL's software costs and the protocol's effect on the wire for one call of
// a ring or tree (nccl_tuning.hpp gives the figures, collective_run.cpp picks them).
#pragma once

#include "sim/bandwidth.hpp"
#include "sim/time.hpp"

#include <cstddef>

namespace railsim::models {

struct CollectiveTiming {
  sim::Duration base_latency{};       // once per call
  sim::Duration intra_hop_latency{};  // per step, on a hop inside a node
  sim::Duration inter_hop_latency{};  // per step, on a hop between nodes
  double wire_factor = 1.0;           // wire bytes per payload byte (LL 2, LL128 128/120)
  // Payload bytes/s one connection of a channel can move: the protocol's GPU-side limit.
  sim::Bandwidth connection_cap = sim::kUnboundedBandwidth;
  int qps_per_connection = 1;  // NCCL_IB_QPS_PER_CONNECTION: messages round-robin over them
  // Point-to-point only: the share of the rate that binds them (a path's, or their channels')
  // its network streams achieve (a calibrated CollectiveCalibration::p2p_net_efficiency): their
  // network flows carry 1 / it wire bytes per byte.
  double net_efficiency = 1.0;
  // LL and LL128: each line carries its own flag, so a hop forwards data as it arrives
  // (transfer_dag.hpp); Simple waits for a whole slice.
  bool streams = false;
  // Per step of a ring across nodes, on a connection between nodes: NCCL's network post overhead
  // (NCCL_NET_OVERHEAD, nccl:src/graph/tuning.cc), the proxy posting the step's network send,
  // during which the connection sends nothing else. NCCL's model charges it per ring step (as the
  // least a step can cost); the links do not carry it.
  sim::Duration step_post{};

  int qps() const { return qps_per_connection > 1 ? qps_per_connection : 1; }

  sim::Duration hop_latency(bool inter_node) const {
    return inter_node ? inter_hop_latency : intra_hop_latency;
  }

  // The wire rate cap of each of the `flows` equal flows one connection's data is split into.
  sim::Bandwidth flow_cap(std::size_t flows) const {
    return sim::Bandwidth{connection_cap.bytes_per_s * wire_factor / static_cast<double>(flows)};
  }
};

}  // namespace railsim::models
