// File: models/fabric/fabric_presets.hpp
// Fabric presets from published reference architectures: superpod-h100, the compute fabric of
// an NVIDIA DGX SuperPOD with DGX H100 (rail-optimised NDR InfiniBand), superpod-b300, that of
// a DGX SuperPOD with DGX B300 (twin-plane Spectrum-X RoCE, 400GbE, adaptive routing), and
// superpod-b300-xdr, that of its Quantum-X800 variant (rail-optimised XDR InfiniBand, 800G).
// docs/scenarios.md gives the source of every figure.
#pragma once

#include "models/fabric/fabric_spec.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace railsim::models {

std::vector<std::string> fabric_preset_names();

// The preset's fabric, which grows by its switch's radix to the system's node count when a System
// is built (fabric_sizing.hpp). Throws sim::InputError naming the known presets for an unknown
// name.
FabricSpec fabric_preset(std::string_view name);

}  // namespace railsim::models
