// File: models/scenario/scenario_file.hpp
// A whole scenario file (docs/scenarios.md): the system, the collective workload `railsim run`
// and `railsim compare` execute on it, and the steady traffic of other jobs sharing its fabric.
#pragma once

#include "models/collective/collective_run.hpp"
#include "models/scenario/system_file.hpp"
#include "models/system/background_traffic.hpp"
#include "sim/bytes.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railsim::models::scenario {

// One collective swept over sizes as nccl-tests sweeps them (-b, -e, -f), with NCCL's settings.
struct CollectiveWorkload {
  // op and NCCL's settings; size and communicator are filled in per row.
  CollectiveRequest request;
  sim::Bytes min_size = sim::mib(32);
  sim::Bytes max_size = sim::mib(32);
  std::int64_t factor = 2;
  int nodes = 0;          // the first `nodes` nodes of the system; 0: all of them
  int gpus_per_node = 0;  // the first G GPUs of each node (nccl-tests -g G); 0: all of them
};

struct ScenarioFile {
  SystemFile system;
  std::optional<CollectiveWorkload> workload;
  std::vector<BackgroundFlow> background;
  bool has_step = false;  // a "step": a training step, which `railsim step` reads (step_file.hpp)
};

ScenarioFile load_scenario_file(const std::string& path);

// Reads a scenario document already parsed (a sweep's point, built in memory); its errors name
// the document's file as load_scenario_file's name the file.
ScenarioFile read_scenario(const JsonValue& root);

// A preset name (its system alone, as system_from_argument gives it) or a scenario file.
ScenarioFile scenario_from_argument(const std::string& preset_or_file);

// Reads a `nccl` object: NCCL's settings, named as its environment variables are (NCCL_ALGO,
// NCCL_PROTO, ...), into `request`.
void read_nccl(const JsonValue& nccl, CollectiveRequest& request);

// An nccl-tests operation name: "all_reduce", "all_gather", "reduce_scatter", "broadcast",
// "reduce", "alltoall", "sendrecv", "gather" or "scatter".
CollectiveOp read_op(const JsonValue& value);

// Reads `/workload` of a scenario document; an error at its pointer for anything the system
// cannot run (more nodes or GPUs than it has).
CollectiveWorkload read_workload(const JsonValue& workload, const SystemSpec& system);

}  // namespace railsim::models::scenario
