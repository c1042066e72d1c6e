// File: tools/collective/collective_choices.hpp
// The names `railsim collective` accepts for NCCL's choices and the fabric's overrides
// (--op all_reduce, --algo ring, --rail misaligned, ...), parsed by parse_named.
#pragma once

#include "models/collective/collective_types.hpp"
#include "models/collective/execution.hpp"
#include "models/fabric/fabric_spec.hpp"
#include "tools/cli_support/named_choice.hpp"

#include <array>

namespace railsim::tools {

inline constexpr std::array<Choice<models::CollectiveOp>, 8> kOpChoices = {
    {{"all_reduce", models::CollectiveOp::kAllReduce},
     {"all_gather", models::CollectiveOp::kAllGather},
     {"reduce_scatter", models::CollectiveOp::kReduceScatter},
     {"broadcast", models::CollectiveOp::kBroadcast},
     {"alltoall", models::CollectiveOp::kAllToAll},
     {"sendrecv", models::CollectiveOp::kSendRecv},
     {"gather", models::CollectiveOp::kGather},
     {"scatter", models::CollectiveOp::kScatter}}};

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

}  // namespace railsim::tools
