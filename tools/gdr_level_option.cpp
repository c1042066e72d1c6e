// File: tools/gdr_level_option.cpp
#include "tools/gdr_level_option.hpp"

#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <string>

namespace railsim::tools {

void add_gdr_level_option(boost::program_options::options_description& options,
                          std::optional<models::PathClass>& level) {
  // The notifier runs inside parse_command_line's notify, so a bad level is an error there.
  options.add_options()(
      "gdr-level",
      boost::program_options::value<std::string>()->value_name("LEVEL")->notifier(
          [&level](const std::string& text) {
            level = models::gdr_level_named(text);
            if (!level) {
              throw sim::InputError(
                  fmt::format("--gdr-level: expected NCCL_NET_GDR_LEVEL's {}, got '{}'",
                              models::kGdrLevelValues, text));
            }
          }),
      "NCCL_NET_GDR_LEVEL: the farthest GPU-NIC distance with GPUDirect RDMA (LOC: never), over "
      "the system's (default PXB)");
}

void apply_gdr_level_option(const std::optional<models::PathClass>& level,
                            models::SystemSpec& spec) {
  if (!level) {
    return;
  }
  if (spec.node.gpus.empty()) {
    throw sim::InputError(
        fmt::format("--gdr-level {}: node {} has no GPU, so no GPU-NIC path for GPUDirect RDMA",
                    models::gdr_level_name(*level), spec.node.name));
  }
  spec.gdr_level = *level;
}

}  // namespace railsim::tools
