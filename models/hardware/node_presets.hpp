// File: models/hardware/node_presets.hpp
// Server presets from real designs: dgx-a100, dgx-h100 (hgx-h200 shares its layout), dgx-b200,
// dgx-b300 (a ConnectX-8 per GPU, two 400G planes),
// gh200 (one Grace Hopper superchip, NICs behind the CPU), gb200-nvl72 and gb300-nvl72 (racks of
// 18 compute trays, one NVLink domain each: nvlink_domain.hpp) and a100-pcie-nvlink-bridge, a
// PCIe-only server with NVLink-bridged GPU pairs and fewer NICs than GPUs. docs/hardware.md gives
// the source of every figure and says which placements are inferred.
#pragma once

#include "models/hardware/node_spec.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace railsim::models {

std::vector<std::string> node_preset_names();

// Throws sim::InputError naming the known presets for an unknown name.
NodeSpec node_preset(std::string_view name);

}  // namespace railsim::models
