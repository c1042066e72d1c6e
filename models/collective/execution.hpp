// File: models/collective/execution.hpp
// The two ways a collective plan runs on the links (docs/architecture.md, the flow engine):
// chunk-accurate, every chunk a flow (transfer_dag.hpp), or pipelined, each channel flow groups
// timed by its algorithm's recurrence (group_pipeline.hpp).
#pragma once

#include <string_view>

namespace railsim::models {

enum class Execution { kChunk, kPipelined };

constexpr std::string_view execution_name(Execution execution) {
  return execution == Execution::kChunk ? "chunk" : "pipelined";
}

}  // namespace railsim::models
