// File: calibrate/parse/lspci.hpp
// What `lspci -vv` prints (run as root, or the capabilities read "<access denied>"): a block per
// PCI function, opened by an unindented "BB:DD.F Class: description" line (with a domain,
// "0000:1b:00.0 ..."; with -nn, numeric IDs in brackets), then indented lines. Of those, the
// NUMA node, and the PCI Express capability's LnkCap (what the device can train at: "Speed
// 32GT/s, Width x16") and LnkSta (what it trained at, "(downgraded)" where less).
#pragma once

#include "calibrate/parse/text_input.hpp"

#include <optional>
#include <string>
#include <vector>

namespace railsim::calibrate::parse {

struct PcieLinkReading {
  double speed_gts = 0.0;  // GT/s per lane: 2.5, 5, 8, 16, 32, 64; 0 for "unknown" (no link)
  int width = 0;           // lanes: "x16" is 16; 0 for a link that is down
  int line = 0;
};

struct LspciFunction {
  std::string address;      // "0000:1b:00.0": the domain is added when lspci leaves it out
  std::string class_name;   // "Infiniband controller", "3D controller", "PCI bridge"
  std::string description;  // "Mellanox Technologies MT2910 Family [ConnectX-7]"
  std::optional<int> numa_node;
  std::optional<PcieLinkReading> capable;  // LnkCap
  std::optional<PcieLinkReading> trained;  // LnkSta
  int line = 0;
};

struct LspciOutput {
  std::vector<LspciFunction> functions;
};

// Lines before the first function (a shell prompt) are not read; after it, every unindented
// line must open a function, and a NUMA node, LnkCap or LnkSta line that does not read as lspci
// prints it is an error. Fails when there is no function.
LspciOutput parse_lspci(const TextInput& input);

bool looks_like_lspci(const TextInput& input);

}  // namespace railsim::calibrate::parse
