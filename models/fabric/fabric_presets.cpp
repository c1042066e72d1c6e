// File: models/fabric/fabric_presets.cpp
// The fabric presets' figures, each from the reference architecture docs/scenarios.md cites.
#include "models/fabric/fabric_presets.hpp"

#include "models/did_you_mean.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <array>

namespace railsim::models {
namespace {

constexpr std::string_view kSuperpodH100 = "superpod-h100";

// DGX SuperPOD H100 reference architecture, compute fabric: spine switches per count of
// scalable units (1 to 4 SUs: 4, 8, 16, 16 spines under 8, 16, 24, 32 leaves).
constexpr std::array<int, 4> kSuperpodSpines = {4, 8, 16, 16};

FabricSpec superpod_h100(int nodes) {
  FabricSpec f;
  f.tiers = 2;
  f.nodes_per_leaf = 32;         // an SU is 32 node slots (31 DGX + UFM), one leaf per rail
  f.oversubscription = 1.0;      // non-blocking: 32 down and 32 up per leaf
  f.port_rate = sim::gbps(400);  // NDR
  f.switch_model = switch_model_named("qm9700");  // the reference architecture's leaves and spines
  f.transport = Transport::kInfiniband;
  f.rails = RailMapping::kAligned;
  const int units = (nodes + f.nodes_per_leaf - 1) / f.nodes_per_leaf;
  if (units < 1 || units > static_cast<int>(kSuperpodSpines.size())) {
    throw sim::InputError(fmt::format(
        "fabric preset '{}' lays out 1 to {} scalable units of {} nodes; {} nodes need {} "
        "(describe that fabric by its own keys instead)",
        kSuperpodH100, kSuperpodSpines.size(), f.nodes_per_leaf, nodes, units));
  }
  f.spines = kSuperpodSpines[static_cast<std::size_t>(units - 1)];
  return f;
}

}  // namespace

std::vector<std::string> fabric_preset_names() { return {std::string(kSuperpodH100)}; }

FabricSpec fabric_preset(std::string_view name, int nodes) {
  if (name == kSuperpodH100) {
    return superpod_h100(nodes);
  }
  const std::vector<std::string> names = fabric_preset_names();
  throw sim::InputError(fmt::format("unknown fabric preset '{}'{}; known presets: {}", name,
                                    did_you_mean(name, names), fmt::join(names, ", ")));
}

}  // namespace railsim::models
