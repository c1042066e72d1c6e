// File: models/scenario/step_file.hpp
// Training-step workloads in JSON (docs/workloads.md): `/step` of a scenario, either a `dp`
// generator's knobs or phases written out with their communicators; and the fault files of
// `railsim step --faults`. Every error names the file and the JSON pointer.
#pragma once

#include "models/scenario/json_reader.hpp"
#include "models/scenario/system_file.hpp"
#include "models/workload/step_run.hpp"
#include "models/workload/step_workload.hpp"
#include "models/workload/work_limit.hpp"

#include <vector>

namespace railsim::models::scenario {

// Reads a `/step` object for a system; the result has passed validate(). A generator whose
// phases would take more memory than `limit` allows (models/workload/work_limit.hpp) is refused
// before it makes any, at the value that sets their number ("/step/bucket: this step would
// create 1.4e+10 gradient buckets (about 1.1e+04 TB; ...)").
StepWorkload read_step(const JsonValue& step,
                       const SystemSpec& system,
                       const WorkLimit& limit = {});

// Reads `/jobs`: several steps, each placed on nodes of its own (`first_node`, `nodes`), that run
// at once on the system (models/workload/step_run.hpp run_steps); each checked against `limit`.
std::vector<StepWorkload> read_jobs(const JsonValue& jobs,
                                    const SystemSpec& system,
                                    const WorkLimit& limit = {});

// What a fault file (or the faults of a sweep point) injects.
// {"pcie": "n3.mlx5_9", "parent": "hb4"}: a GPU or NIC in another slot (models::move_pcie_device).
struct PcieMove {
  int node = 0;
  std::string element;
  PcieParent parent;
};

struct StepFaults {
  std::string file;                   // where they were written, for errors when applied
  std::vector<LinkFault> links;       // links and PCIe elements; may carry schedules
  std::vector<Straggler> stragglers;  // {"gpu": "n3.gpu2", "compute_scale": 1.3}
  std::vector<int> gdr_off_nodes;     // {"gdr_off_node": 3}
  std::vector<PcieMove> moved;        // applied to the system before it is built
};

// Reads a faults array: the entries of /system/faults, timed ones, stragglers, GPUDirect RDMA
// switched off on a node, and GPUs or NICs in another slot.
StepFaults read_step_faults(const JsonValue& faults, const SystemSpec& system);

// A fault file: {"faults": [...]}.
StepFaults load_step_faults(const std::string& path, const SystemSpec& system);

}  // namespace railsim::models::scenario
