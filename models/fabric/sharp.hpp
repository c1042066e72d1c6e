// File: models/fabric/sharp.hpp
// SharpSpec: a fabric whose switches reduce (InfiniBand SHARP), and which fabrics can.
#pragma once

#include "models/fabric/switch_model.hpp"
#include "models/hardware/node_spec.hpp"
#include "sim/time.hpp"

#include <optional>
#include <string>

namespace railsim::models {

// InfiniBand SHARP: the fabric's switches reduce, and NCCL runs CollNet over them
// (NCCL_COLLNET_ENABLE=1 with NVIDIA's SHARP plugin; collnet_plan.hpp). A tree's streams move at
// the rate of the links they cross: SHARP's streaming aggregation reached 95% of HDR's network
// bandwidth in MPI_Allreduce (Graham et al., ISC 2020), so no rate of its own is modelled.
struct SharpSpec {
  // What a switch adds to a piece it reduces beyond forwarding it. 0 by default: NCCL's CollNet
  // network latency (31 us Direct, 30 us Chain; nccl:src/graph/tuning.cc), measured on SHARP
  // fabrics, already holds the whole round trip, and no absolute per-switch figure is published.
  sim::Duration latency{};
};

// Why a fabric of `transport` and `switch_model` (if named) cannot run SHARP, or nullopt: only
// NVIDIA's Quantum InfiniBand switches reduce.
std::optional<std::string> sharp_problem(Transport transport,
                                         const std::optional<SwitchModel>& switch_model);

}  // namespace railsim::models
