// File: tools/cli_support/named_choice.hpp
// Options whose value is one of a few names (--op all_reduce, --format json): a table of names
// and values, and one parser that answers a misspelling with the choices and a suggestion.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace railsim::tools {

template <typename T>
using Choice = std::pair<std::string_view, T>;

// How an error lists the names: "one of a, b, c", or "a, b or c" (the words --format has
// always used, which scripts and tests match).
enum class NameList { kOneOf, kOr };

// The index of `text` among `names`, or an InputError for `option` listing the names and the
// closest one ("--op: expected one of all_reduce, ..., got 'allreduce' (did you mean ...)").
std::size_t named_index(std::string_view option,
                        std::string_view text,
                        const std::vector<std::string_view>& names,
                        NameList list = NameList::kOneOf);

// The value named `text`, or an InputError for `option` listing the names.
template <typename T, std::size_t N>
T parse_named(std::string_view option,
              std::string_view text,
              const std::array<Choice<T>, N>& choices,
              NameList list = NameList::kOneOf) {
  std::vector<std::string_view> names;
  names.reserve(choices.size());
  for (const auto& choice : choices) {
    names.push_back(choice.first);
  }
  return choices[named_index(option, text, names, list)].second;
}

}  // namespace railsim::tools
