// File: tools/cli_support/output_format.hpp
// --format: the forms a command prints its answer in. Each command names its own text form
// after what it imitates (nccl-tests, perftest, a table) and offers a subset of the others;
// every --format is parsed by parse_named, so a misspelling gets the choices and a suggestion.
#pragma once

#include "tools/cli_support/named_choice.hpp"

#include <array>
#include <cstddef>
#include <string_view>

namespace railsim::tools {

enum class OutputFormat {
  kText,  // the command's own columns for a person: nccl-tests', perftest's, a table
  kJson,
  kCsv,
  kDot,  // Graphviz
};

// The format `text` names among `choices`; otherwise an InputError such as "--format: expected
// table, json or csv, got 'jsn' (did you mean 'json'?)".
template <std::size_t N>
OutputFormat parse_format(std::string_view text,
                          const std::array<Choice<OutputFormat>, N>& choices) {
  return parse_named("--format", text, choices, NameList::kOr);
}

// The text form called "table", or JSON or CSV: run, compare.
inline constexpr std::array<Choice<OutputFormat>, 3> kTableJsonCsv = {
    {{"table", OutputFormat::kText}, {"json", OutputFormat::kJson}, {"csv", OutputFormat::kCsv}}};

}  // namespace railsim::tools
