// File: models/hardware/pcie.cpp
// PCIe generation tables (PCI-SIG base specifications, as summarised in fabric-facts.md §4.2).
#include "models/hardware/pcie.hpp"

#include "sim/input_error.hpp"

#include <string>

namespace railsim::models {

sim::Bandwidth pcie_raw_bandwidth(PcieLink link) {
  double gigatransfers = 0.0;
  double coding = 0.0;
  switch (link.generation) {
    case 3:
      gigatransfers = 8.0;
      coding = 128.0 / 130.0;
      break;
    case 4:
      gigatransfers = 16.0;
      coding = 128.0 / 130.0;
      break;
    case 5:
      gigatransfers = 32.0;
      coding = 128.0 / 130.0;
      break;
    case 6:
      gigatransfers = 64.0;
      coding = 242.0 / 256.0;
      break;
    default:
      throw sim::InputError("PCIe generation " + std::to_string(link.generation) +
                            ", expected 3, 4, 5 or 6");
  }
  if (link.lanes != 1 && link.lanes != 2 && link.lanes != 4 && link.lanes != 8 &&
      link.lanes != 16) {
    throw sim::InputError("PCIe width x" + std::to_string(link.lanes) +
                          ", expected x1, x2, x4, x8 or x16");
  }
  return sim::gbps(gigatransfers * coding * link.lanes);
}

sim::Bandwidth pcie_effective_bandwidth(PcieLink link, double efficiency) {
  return pcie_raw_bandwidth(link) * efficiency;
}

}  // namespace railsim::models
