// File: tools/cli_support/named_choice.cpp
#include "tools/cli_support/named_choice.hpp"

#include "models/did_you_mean.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <string>

namespace railsim::tools {

namespace {

std::string listed(const std::vector<std::string>& names, NameList list) {
  if (list == NameList::kOneOf || names.size() < 2) {
    return fmt::format("one of {}", fmt::join(names, ", "));
  }
  return fmt::format("{} or {}", fmt::join(names.begin(), names.end() - 1, ", "), names.back());
}

}  // namespace

std::size_t named_index(std::string_view option,
                        std::string_view text,
                        const std::vector<std::string_view>& names,
                        NameList list) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == text) {
      return i;
    }
  }
  const std::vector<std::string> candidates(names.begin(), names.end());
  throw sim::InputError(fmt::format("{}: expected {}, got '{}'{}", option, listed(candidates, list),
                                    text, models::did_you_mean(text, candidates)));
}

}  // namespace railsim::tools
