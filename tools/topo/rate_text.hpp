// File: tools/topo/rate_text.hpp
// Rates as railsim's outputs print them: ports in Gb/s (as their rates are quoted), links inside
// a node and sums of ports in GB/s (10^9 bytes, as nccl-tests).
#pragma once

#include "sim/bandwidth.hpp"

#include <fmt/format.h>

#include <string>

namespace railsim::tools {

inline std::string in_gbps(sim::Bandwidth rate) {
  return fmt::format("{:.2f} Gb/s", rate.in_gbps());
}

inline std::string in_gbytes(sim::Bandwidth rate) {
  return fmt::format("{:.2f} GB/s", rate.in_gbytes_per_s());
}

}  // namespace railsim::tools
