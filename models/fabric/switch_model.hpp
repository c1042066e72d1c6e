// File: models/fabric/switch_model.hpp
// A fabric switch as its datasheet gives it: ports and their rate. Sourced presets
// (docs/hardware.md, ../shared/docs/fabric-facts.md section 6): qm9700, NVIDIA Quantum-2 QM9700,
// 64 x NDR 400G; q3400, Quantum-X800 Q3400, 144 x XDR 800G; sn5600, Spectrum-4 SN5600,
// 64 x 800GbE. A port splits into slower ones (a QM9700 OSFP cage is 2 x 400G or 4 x 200G, an
// SN5600 800G port 2 x 400G), so a switch has ports x floor(its rate / the fabric's) ports at
// the fabric's rate.
#pragma once

#include "sim/bandwidth.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace railsim::models {

struct SwitchModel {
  std::string name;          // "QM9700"
  int ports = 0;             // at port_rate
  sim::Bandwidth port_rate;  // line rate per port and direction
  bool reduces = false;      // runs InfiniBand SHARP's in-network reductions
};

std::vector<std::string> switch_model_names();

// Throws sim::InputError naming the known models (and the nearest one) for an unknown name.
SwitchModel switch_model_named(std::string_view name);

// The ports `model` has at `rate`, split as its ports allow; 0 when `rate` is above its own.
int ports_at(const SwitchModel& model, sim::Bandwidth rate);

}  // namespace railsim::models
