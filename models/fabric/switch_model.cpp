// File: models/fabric/switch_model.cpp
#include "models/fabric/switch_model.hpp"

#include "models/did_you_mean.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cmath>
#include <utility>

namespace railsim::models {
namespace {

struct Preset {
  std::string_view key;
  std::string_view name;
  int ports;
  double gbps;
  bool reduces;
};

// Quantum-2 runs SHARPv3 and Quantum-X800 SHARPv4 (NVIDIA SHARP release notes list the Quantum
// families only); Spectrum Ethernet switches have no SHARP for NCCL's CollNet.
constexpr std::array<Preset, 3> kPresets = {{
    {"qm9700", "QM9700", 64, 400.0, true},  // QM97X0 user manual: 32 OSFP cages, 2 x NDR each
    {"q3400", "Q3400", 144, 800.0,
     true},  // Quantum-X800: 144 x XDR 800G (fabric-facts: unverified)
    {"sn5600", "SN5600", 64, 800.0, false},  // Spectrum-4 SN5600: 64 x 800GbE
}};

}  // namespace

std::vector<std::string> switch_model_names() {
  std::vector<std::string> names;
  names.reserve(kPresets.size());
  for (const Preset& p : kPresets) {
    names.emplace_back(p.key);
  }
  return names;
}

SwitchModel switch_model_named(std::string_view name) {
  for (const Preset& p : kPresets) {
    if (p.key == name) {
      return {std::string(p.name), p.ports, sim::gbps(p.gbps), p.reduces};
    }
  }
  const std::vector<std::string> names = switch_model_names();
  throw sim::InputError(fmt::format("unknown switch '{}'{}; known switches: {}", name,
                                    did_you_mean(name, names), fmt::join(names, ", ")));
}

int ports_at(const SwitchModel& model, sim::Bandwidth rate) {
  // A relative slack keeps 400 Gb/s from reading as a hair above 400 after unit conversions.
  const double split = std::floor(model.port_rate.bytes_per_s / rate.bytes_per_s * (1.0 + 1e-9));
  return model.ports * static_cast<int>(split);
}

}  // namespace railsim::models
