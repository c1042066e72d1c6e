// File: tools/collective/collective_choices.hpp
// The names `railsim collective` accepts for NCCL's choices and the fabric's overrides
// (--op all_reduce, --algo ring, --rail misaligned, ...), parsed by parse_named.
#pragma once

#include "models/collective/collective_types.hpp"
#include "models/collective/execution.hpp"
#include "models/fabric/fabric_spec.hpp"
#include "tools/cli_support/named_choice.hpp"

#include <array>
#include <cstddef>

namespace railsim::tools {

// Every operation under its nccl-tests name (op_name).
inline constexpr auto kOpChoices = [] {
  std::array<Choice<models::CollectiveOp>, models::kCollectiveOps.size()> out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = {models::op_name(models::kCollectiveOps[i]), models::kCollectiveOps[i]};
  }
  return out;
}();

// Every algorithm under its NCCL_ALGO name (algorithm_name), and "collnet" for both CollNets.
inline constexpr auto kAlgorithmChoices = [] {
  std::array<Choice<models::AlgorithmSet>, models::kAlgorithms.size() + 1> out{};
  for (std::size_t i = 0; i < models::kAlgorithms.size(); ++i) {
    out[i] = {models::algorithm_name(models::kAlgorithms[i]), models::kAlgorithms[i]};
  }
  out.back() = {"collnet", models::kCollNet};
  return out;
}();

inline constexpr std::array<Choice<models::Protocol>, 3> kProtocolChoices = {
    {{"simple", models::Protocol::kSimple},
     {"ll128", models::Protocol::kLl128},
     {"ll", models::Protocol::kLl}}};

inline constexpr std::array<Choice<models::Execution>, 2> kExecutionChoices = {
    {{"chunk", models::Execution::kChunk}, {"pipelined", models::Execution::kPipelined}}};

inline constexpr std::array<Choice<models::RailMapping>, 3> kRailChoices = {
    {{"aligned", models::RailMapping::kAligned},
     {"misaligned", models::RailMapping::kMisaligned},
     {"top-of-rack", models::RailMapping::kTopOfRack}}};

inline constexpr std::array<Choice<models::Routing>, 2> kRoutingChoices = {
    {{"ecmp", models::Routing::kEcmp}, {"adaptive", models::Routing::kAdaptive}}};

}  // namespace railsim::tools
