// File: tools/ib_hca_option.cpp
#include "tools/ib_hca_option.hpp"

#include "sim/input_error.hpp"

#include <string>

namespace railsim::tools {

void add_ib_hca_option(boost::program_options::options_description& options,
                       std::optional<models::IbHcaFilter>& filter) {
  // The notifier runs inside parse_command_line's notify, so a bad list is an error there.
  options.add_options()(
      "ib-hca",
      boost::program_options::value<std::string>()->value_name("LIST")->notifier(
          [&filter](const std::string& text) {
            try {
              filter = models::parse_ib_hca(text);
            } catch (const sim::InputError& e) {
              throw sim::InputError(std::string("--ib-hca: ") + e.what());
            }
          }),
      "NCCL_IB_HCA: the NICs NCCL may use, e.g. mlx5_0,mlx5_3 (prefixes), =mlx5_1 (exact), "
      "^mlx5_2 (all but)");
}

void apply_ib_hca_option(const std::optional<models::IbHcaFilter>& filter,
                         models::SystemSpec& spec) {
  if (!filter) {
    return;
  }
  try {
    models::check_ib_hca(*filter, spec.node);
  } catch (const sim::InputError& e) {
    throw sim::InputError(std::string("--ib-hca: ") + e.what());
  }
  spec.ib_hca = filter;
}

}  // namespace railsim::tools
