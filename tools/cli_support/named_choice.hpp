// File: tools/cli_support/named_choice.hpp
// Options whose value is one of a few names (--op all_reduce, --rail misaligned): the tables of
// names, and one parser that answers a misspelling with the choices and a suggestion.
#pragma once

#include "models/collective/collective_types.hpp"
#include "models/collective/execution.hpp"
#include "models/did_you_mean.hpp"
#include "models/fabric/fabric_spec.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railsim::tools {

template <typename T>
using Choice = std::pair<std::string_view, T>;

inline constexpr std::array<Choice<models::CollectiveOp>, 4> kOpChoices = {
    {{"all_reduce", models::CollectiveOp::kAllReduce},
     {"all_gather", models::CollectiveOp::kAllGather},
     {"reduce_scatter", models::CollectiveOp::kReduceScatter},
     {"broadcast", models::CollectiveOp::kBroadcast}}};

inline constexpr std::array<Choice<models::Algorithm>, 5> kAlgorithmChoices = {
    {{"ring", models::Algorithm::kRing},
     {"tree", models::Algorithm::kTree},
     {"nvls", models::Algorithm::kNvls},
     {"nvlstree", models::Algorithm::kNvlsTree},
     {"pat", models::Algorithm::kPat}}};

inline constexpr std::array<Choice<models::Protocol>, 3> kProtocolChoices = {
    {{"simple", models::Protocol::kSimple},
     {"ll128", models::Protocol::kLl128},
     {"ll", models::Protocol::kLl}}};

inline constexpr std::array<Choice<models::Execution>, 2> kExecutionChoices = {
    {{"chunk", models::Execution::kChunk}, {"pipelined", models::Execution::kPipelined}}};

inline constexpr std::array<Choice<models::RailMapping>, 2> kRailChoices = {
    {{"aligned", models::RailMapping::kAligned}, {"misaligned", models::RailMapping::kMisaligned}}};

inline constexpr std::array<Choice<models::Routing>, 2> kRoutingChoices = {
    {{"ecmp", models::Routing::kEcmp}, {"adaptive", models::Routing::kAdaptive}}};

// The value named `text`, or an InputError for `option` listing the names.
template <typename T, std::size_t N>
T parse_named(std::string_view option,
              std::string_view text,
              const std::array<Choice<T>, N>& choices) {
  std::vector<std::string> names;
  names.reserve(choices.size());
  for (const auto& [name, value] : choices) {
    if (name == text) {
      return value;
    }
    names.emplace_back(name);
  }
  throw sim::InputError(fmt::format("{}: expected one of {}, got '{}'{}", option,
                                    fmt::join(names, ", "), text,
                                    models::did_you_mean(text, names)));
}

}  // namespace railsim::tools
