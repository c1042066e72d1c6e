// File: models/hardware/pcie.hpp
// PCIe links: a generation and a lane count, and the rate a transfer achieves over one, per
// direction. Raw rate = lanes x transfer rate x line-code efficiency / 8; the effective rate
// multiplies in kPcieEfficiency, the share left after TLP headers, DLLPs and DMA overheads.
#pragma once

#include "sim/bandwidth.hpp"

namespace railsim::models {

struct PcieLink {
  int generation = 4;  // 3, 4, 5 or 6
  int lanes = 16;      // 1, 2, 4, 8 or 16

  constexpr bool operator==(const PcieLink&) const = default;
};

// Achieved / raw rate of a large DMA stream, a calibrated parameter. Default from measurements
// (docs/hardware.md): Gen4 x16 host copies 25.1 GB/s of 31.5 raw (0.80), Gen5 x16 NIC-GPU
// peer-to-peer ~49 GB/s of 63.0 raw (0.78) on DGX H100.
inline constexpr double kPcieEfficiency = 0.78;

// The per-lane transfer rate of a generation in GT/s, as lspci prints it (Gen5: 32). Throws
// sim::InputError for a generation outside the tables.
double pcie_transfer_rate_gts(int generation);

// Raw data rate per direction after line coding (128b/130b for Gen3-5, 242/256 FLIT for Gen6).
// Throws sim::InputError for a generation or width outside the tables.
sim::Bandwidth pcie_raw_bandwidth(PcieLink link);

sim::Bandwidth pcie_effective_bandwidth(PcieLink link, double efficiency = kPcieEfficiency);

}  // namespace railsim::models
