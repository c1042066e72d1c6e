// File: models/collective/collective_calibration.hpp
// CollectiveCalibration: the software costs a calibration profile adds to NCCL's tuning tables
// (docs/calibration.md, "Parameters"). NCCL's own latencies come from its tables
// (nccl_tuning.hpp); what a real cluster spends above them (kernel launch and proxy thread
// delays, the GPU threads' per-step synchronisation) has no datasheet figure and is fitted from
// nccl-tests logs. Zero and unset by default: an uncalibrated run is NCCL's model alone.
#pragma once

#include "models/collective/collective_types.hpp"
#include "sim/time.hpp"

#include <array>
#include <cstddef>
#include <optional>

namespace railsim::models {

struct CollectiveCalibration {
  sim::Duration base_latency{};  // added once per call, to every algorithm's base latency
  // Added to every step of a hop (intra- and inter-node alike), per protocol in kProtocols order.
  std::array<sim::Duration, kProtocols.size()> step_latency{};
  // The share of the NVLink rate NVLS multimem traffic achieves; unset: NCCL's own figure for the
  // GPU generation (nvls_efficiency in nccl_tuning.hpp). NCCL's tuner keeps its own figure.
  std::optional<double> nvls_efficiency;
  // What one point-to-point channel moves over the network, GB/s of payload; unset: the figure
  // NCCL sizes its channels by (kP2pChannelNetBytesPerS, p2p_plan.hpp).
  std::optional<double> p2p_channel_GBps;
  // The share of the rate that binds it (its path's, or its channels') a point-to-point stream
  // over the network achieves: on cluster01, 0.89-0.93 of what its rings reach on the same NICs,
  // which no source explains (docs/validation.md). No figure is known to stand for it: 1 unless
  // fitted.
  double p2p_net_efficiency = 1.0;

  sim::Duration step(Protocol protocol) const {
    return step_latency[static_cast<std::size_t>(protocol)];
  }
};

}  // namespace railsim::models
