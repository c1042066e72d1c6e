// File: calibrate/parse/ibstat.hpp
// What `ibstat` prints: a block per channel adapter ("CA 'mlx5_0'") with its type, firmware and
// GUIDs, and per port its state, physical state, rate (Gb/s, as the port trained: 400 = NDR 4x)
// and link layer (InfiniBand or Ethernet).
#pragma once

#include "calibrate/parse/text_input.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace railsim::calibrate::parse {

struct IbstatPort {
  int number = 0;
  std::string state;           // "Active", "Down", "Initializing", ...
  std::string physical_state;  // "LinkUp", "Disabled", "Polling", ...
  double rate_gbps = 0.0;      // "Rate: 400"
  std::int64_t base_lid = 0;
  std::int64_t lmc = 0;
  std::int64_t sm_lid = 0;
  std::string capability_mask;  // "0xa751e848"
  std::string port_guid;        // "0x58a2e103001b2576"
  std::string link_layer;       // "InfiniBand", "Ethernet"
  int line = 0;
};

struct IbstatCa {
  std::string name;     // "mlx5_0"
  std::string ca_type;  // "MT4129"
  int port_count = 0;   // "Number of ports"
  std::string firmware;
  std::string hardware_version;
  std::string node_guid;
  std::string system_image_guid;
  std::vector<IbstatPort> ports;
  int line = 0;
};

struct IbstatOutput {
  std::vector<IbstatCa> cas;
};

// Every CA must list as many ports as it says it has, each with its State, Physical state, Rate
// and Link layer; a field ibstat does not print, or one out of place, is an error.
IbstatOutput parse_ibstat(const TextInput& input);

bool looks_like_ibstat(const TextInput& input);

}  // namespace railsim::calibrate::parse
