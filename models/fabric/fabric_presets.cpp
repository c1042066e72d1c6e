// File: models/fabric/fabric_presets.cpp
// The fabric presets' figures, each from the reference architecture docs/scenarios.md cites.
#include "models/fabric/fabric_presets.hpp"

#include "models/did_you_mean.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

namespace railsim::models {
namespace {

constexpr std::string_view kSuperpodH100 = "superpod-h100";

FabricSpec superpod_h100() {
  FabricSpec f;
  f.tiers = 2;
  f.nodes_per_leaf = 32;         // an SU is 32 node slots (31 DGX + UFM), one leaf per rail
  f.oversubscription = 1.0;      // non-blocking: 32 down and 32 up per leaf
  f.port_rate = sim::gbps(400);  // NDR
  f.switch_model = switch_model_named("qm9700");  // the reference architecture's leaves and spines
  f.transport = Transport::kInfiniband;
  f.rails = RailMapping::kAligned;
  // The RA's spines per SU count (4, 8, 16, 16 for 1-4 SUs) are the fewest QM9700s that hold
  // the leaves' uplinks; more SUs grow the same way, then by a third tier (fabric_sizing.hpp).
  f.grows_by_radix = true;
  return f;
}

constexpr std::string_view kSuperpodB300 = "superpod-b300";

// The Spectrum-X compute fabric of a DGX SuperPOD with DGX B300: twin planes, every GPU's
// ConnectX-8 split into two 400GbE ports, one on each; SUs of 64 nodes, rail-aligned; Spectrum-4
// switches of 64 x 800GbE split into 128 x 400GbE, 64 down and 64 up per leaf. The RA's counts
// (16 leaves and 8 spines for 1 SU, 32 and 16 for 2, up to 256 and 128 for 16) are what the
// radix lays out. Spectrum-X sprays a flow's packets over every path and the SuperNIC puts them
// back in order: adaptive routing, on RoCE.
FabricSpec superpod_b300() {
  FabricSpec f;
  f.tiers = 2;
  f.nodes_per_leaf = 64;
  f.planes = 2;
  f.oversubscription = 1.0;
  f.port_rate = sim::gbps(400);
  f.switch_model = switch_model_named("sn5600");
  f.transport = Transport::kRoce;
  f.rails = RailMapping::kAligned;
  f.routing = Routing::kAdaptive;
  f.grows_by_radix = true;
  return f;
}

constexpr std::string_view kSuperpodB300Xdr = "superpod-b300-xdr";

// The Quantum-X800 compute fabric of a DGX SuperPOD with DGX B300 (the XDR and AC-power
// variant): every GPU's ConnectX-8 one 800G XDR port, SUs of 72 nodes, rail-aligned, one leaf a
// rail; Q3400 switches of 144 x 800G, 72 down and 72 up per leaf. The RA's counts (8 leaves and
// 4 spines for 1 SU, 16 and 8 for 2, 32 and 18 for 4, 64 and 36 for 8, 144 and 72 for 18; as
// many leaf-spine cables as node-leaf ones) are what the radix lays out.
FabricSpec superpod_b300_xdr() {
  FabricSpec f;
  f.tiers = 2;
  f.nodes_per_leaf = 72;
  f.oversubscription = 1.0;
  f.port_rate = sim::gbps(800);
  f.switch_model = switch_model_named("q3400");
  f.transport = Transport::kInfiniband;
  f.rails = RailMapping::kAligned;
  f.grows_by_radix = true;
  return f;
}

}  // namespace

std::vector<std::string> fabric_preset_names() {
  return {std::string(kSuperpodH100), std::string(kSuperpodB300), std::string(kSuperpodB300Xdr)};
}

FabricSpec fabric_preset(std::string_view name) {
  if (name == kSuperpodH100) {
    return superpod_h100();
  }
  if (name == kSuperpodB300) {
    return superpod_b300();
  }
  if (name == kSuperpodB300Xdr) {
    return superpod_b300_xdr();
  }
  const std::vector<std::string> names = fabric_preset_names();
  throw sim::InputError(fmt::format("unknown fabric preset '{}'{}; known presets: {}", name,
                                    did_you_mean(name, names), fmt::join(names, ", ")));
}

}  // namespace railsim::models
