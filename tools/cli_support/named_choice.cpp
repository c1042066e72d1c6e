// File: tools/cli_support/named_choice.cpp
#include "tools/cli_support/named_choice.hpp"

#include "models/did_you_mean.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <string>

namespace railsim::tools {

std::size_t named_index(std::string_view option,
                        std::string_view text,
                        const std::vector<std::string_view>& names) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == text) {
      return i;
    }
  }
  const std::vector<std::string> candidates(names.begin(), names.end());
  throw sim::InputError(fmt::format("{}: expected one of {}, got '{}'{}", option,
                                    fmt::join(candidates, ", "), text,
                                    models::did_you_mean(text, candidates)));
}

}  // namespace railsim::tools
