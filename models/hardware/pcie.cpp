// File: models/hardware/pcie.cpp
// PCIe generation tables (PCI-SIG base specifications 3.0-6.0: rates per lane and encodings).
#include "models/hardware/pcie.hpp"

#include "sim/input_error.hpp"

#include <string>

namespace railsim::models {

double pcie_transfer_rate_gts(int generation) {
  if (generation < 3 || generation > 6) {
    throw sim::InputError("PCIe generation " + std::to_string(generation) +
                          ", expected 3, 4, 5 or 6");
  }
  return 8.0 * static_cast<double>(1 << (generation - 3));  // doubling from Gen3's 8 GT/s
}

sim::Bandwidth pcie_raw_bandwidth(PcieLink link) {
  const double gigatransfers = pcie_transfer_rate_gts(link.generation);
  // 128b/130b for Gen3-5, FLIT mode's 242/256 for Gen6.
  const double coding = link.generation == 6 ? 242.0 / 256.0 : 128.0 / 130.0;
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
