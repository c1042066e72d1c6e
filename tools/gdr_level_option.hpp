// File: tools/gdr_level_option.hpp
// `--gdr-level LEVEL` on the commands that take a system (collective, run, p2p):
// NCCL_NET_GDR_LEVEL, the farthest GPU-NIC distance at which GPUDirect RDMA is used (farther, NCCL
// stages through host memory), over the system's own (/system/gdr_level, PXB by default). A what-if
// such as "GDR off" (LOC) or "GDR across the socket" (SYS) without editing the scenario.
#pragma once

#include "models/hardware/path_class.hpp"
#include "models/system/system.hpp"

#include <boost/program_options.hpp>

#include <optional>

namespace railsim::tools {

// Adds --gdr-level to `options`: when given, parsing sets `level` from LOC, PIX, PXB, PHB, NODE,
// SYS or NCCL's legacy integers 0-5, or throws an InputError naming the option and the values.
void add_gdr_level_option(boost::program_options::options_description& options,
                          std::optional<models::PathClass>& level);

// Sets spec.gdr_level to `level`, if given. Throws sim::InputError "--gdr-level: ..." for a
// system whose nodes have no GPU, where the level means nothing.
void apply_gdr_level_option(const std::optional<models::PathClass>& level,
                            models::SystemSpec& spec);

}  // namespace railsim::tools
