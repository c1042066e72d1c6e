// File: models/workload/step_workload.hpp
// A training step as data: a DAG of phases, each either compute (every GPU of the job busy for a
// while) or a collective on a named communicator, with the dependencies between them.
//
// Semantics (docs/workloads.md). Every phase runs on every rank of the job. A rank runs phase P
// once all of P's dependencies have finished on that rank and the previous phase of P's stream
// has too: compute phases share the rank's one compute stream, and the collectives of one
// communicator share that communicator's stream, in the order they are written (CUDA streams
// run their kernels in order; NCCL calls on one communicator are serialised). A collective phase
// runs once per group of its communicator; a group starts when the last of its ranks is ready
// (the others wait inside the call, as NCCL's ranks do) and ends for all of them at once.
// Collectives of different communicators, and compute, overlap freely.
#pragma once

#include "models/collective/collective_run.hpp"
#include "models/collective/communicator.hpp"
#include "sim/time.hpp"

#include <string>
#include <variant>
#include <vector>

namespace railsim::models {

// Compute: every GPU busy for `duration` (a straggler's longer: models/workload/step_run.hpp).
struct ComputeTask {
  sim::Duration duration{};
};

// One collective call on every group of communicator `communicator` (an index into
// StepWorkload::communicators); `request` holds the operation, size and NCCL's settings, its
// communicator is each group's in turn.
struct CollectiveTask {
  CollectiveRequest request;
  int communicator = 0;
};

struct Phase {
  std::string name;
  std::variant<ComputeTask, CollectiveTask> task;
  std::vector<int> after;  // indices of earlier phases this one waits for
};

// A communicator kind, such as data-parallel: groups that partition the job's ranks, each an
// NCCL communicator of its own.
struct StepCommunicator {
  std::string name;
  std::vector<Communicator> groups;
};

struct StepWorkload {
  std::string name;
  std::vector<int> nodes;  // the system's nodes the job runs on
  int gpus_per_node = 1;   // the first G GPUs of each of them
  std::vector<StepCommunicator> communicators;
  std::vector<Phase> phases;  // in the order written: dependencies point to earlier phases

  int ranks() const { return static_cast<int>(nodes.size()) * gpus_per_node; }
};

// The job's rank of a GPU: its node's index in `nodes` x G + GPU; -1 for a GPU outside the job.
// O(nodes).
int job_rank(const StepWorkload& workload, int system_node, int gpu);

// Checks what the semantics need and the readers cannot see one field at a time: phases depend
// only on earlier ones, every communicator's groups cover each rank of the job exactly once.
// Throws sim::InputError naming the phase or communicator.
void validate(const StepWorkload& workload);

}  // namespace railsim::models
