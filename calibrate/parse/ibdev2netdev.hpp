// File: calibrate/parse/ibdev2netdev.hpp
// What `ibdev2netdev` prints, one line per verbs port: "mlx5_0 port 1 ==> ibp24s0 (Up)", and
// with -v the PCI address, CA type, part number, description, firmware and port state too:
// "0000:1b:00.0 mlx5_0 (MT4129 - MCX75310AAS-NEAT) ConnectX-7 ... fw 28.39.1002 port 1
// (ACTIVE) ==> ibp27s0 (Up)".
#pragma once

#include "calibrate/parse/text_input.hpp"

#include <optional>
#include <string>
#include <vector>

namespace railsim::calibrate::parse {

// What -v adds.
struct Ibdev2netdevDetails {
  std::string pci_address;  // "0000:1b:00.0"; empty when the release prints none
  std::string ca_type;      // "MT4129"
  std::string part;         // "MCX75310AAS-NEAT" (or a serial, or "NA")
  std::string description;  // "ConnectX-7 ..."; may be empty
  std::string firmware;     // "28.39.1002"
  std::string port_state;   // "ACTIVE", "DOWN", "INIT", ...
};

struct Ibdev2netdevPort {
  std::string device;  // "mlx5_0"
  int port = 0;
  std::string netdev;  // "ibp24s0", "bond0"
  bool netdev_up = false;
  std::optional<Ibdev2netdevDetails> details;
  int line = 0;
};

struct Ibdev2netdevOutput {
  std::vector<Ibdev2netdevPort> ports;
};

// Every "... ==> ..." line must parse; other lines (shell prompts, ifconfig output pasted in
// between) are skipped. Fails when there are no ports.
Ibdev2netdevOutput parse_ibdev2netdev(const TextInput& input);

bool looks_like_ibdev2netdev(const TextInput& input);

}  // namespace railsim::calibrate::parse
