// File: models/workload/step_workload.hpp
// A training step as data: a DAG of phases, each compute (GPUs of the job busy for a while), a
// collective on a named communicator, or a send between the ranks of each pair of one, with the
// dependencies between them.
//
// Semantics (docs/workloads.md). A compute phase runs on every rank of the job, or on the ranks
// it lists (a pipeline stage's); a collective or send phase runs on every group of its
// communicator. A rank runs phase P once each of P's dependencies that runs on that rank has
// finished there, and the previous phase of P's stream on that rank has too: compute phases
// share the rank's one compute stream, and the collectives and sends of one communicator share
// that communicator's stream, in the order they are written (CUDA streams run their kernels in
// order; NCCL calls on one communicator are serialised). A group starts when the last of its
// ranks is ready (the others wait inside the call, as NCCL's ranks do) and ends for all of them
// at once. Phases on different streams overlap freely.
#pragma once

#include "models/collective/collective_run.hpp"
#include "models/collective/communicator.hpp"
#include "sim/bytes.hpp"
#include "sim/time.hpp"

#include <string>
#include <variant>
#include <vector>

namespace railsim::models {

// Compute: every GPU busy for `duration` (a straggler's longer: models/workload/step_run.hpp).
// `per_rank`, when not empty, gives each of the phase's ranks its own time instead, in the order
// of Phase::ranks (of the job's ranks when that is empty): experts that drew more tokens.
struct ComputeTask {
  sim::Duration duration{};
  std::vector<sim::Duration> per_rank = {};
};

// One collective call on every group of communicator `communicator` (an index into
// StepWorkload::communicators); `request` holds the operation, size and NCCL's settings, its
// communicator is each group's in turn.
//
// `calls` equal calls run back to back (a stage's tensor-parallel AllReduces, layer after layer,
// when the compute between them is written as one phase): the first is simulated and the phase
// holds for `calls` times its time, carrying as many times its bytes. Exact while the network
// stays as the first call found it, as a tensor-parallel group alone on its node's NVLink does.
struct CollectiveTask {
  CollectiveRequest request;
  int communicator = 0;
  int calls = 1;
};

// `size` bytes from rank 0 to rank 1 of each group (a pair) of communicator `communicator`:
// models/workload/send_call.hpp.
struct SendTask {
  sim::Bytes size;
  int communicator = 0;
};

struct Phase {
  std::string name;
  std::variant<ComputeTask, CollectiveTask, SendTask> task;
  std::vector<int> after;       // indices of earlier phases this one waits for
  std::vector<int> ranks = {};  // compute only: the job ranks it runs on, in order; empty: all
};

// The communicator a collective or send phase runs on; -1 for compute.
int communicator_of(const Phase& phase);

// A communicator kind, such as data-parallel: disjoint groups of the job's ranks, each an NCCL
// communicator of its own.
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

// The job's index of each system node (0 .. the highest of `nodes`), -1 for those outside it.
std::vector<int> job_node_index(const StepWorkload& workload);

// The job ranks of a group's ranks, in its order, -1 for a GPU outside the job; `node_index` is
// job_node_index(workload). O(group ranks).
std::vector<int> group_job_ranks(const StepWorkload& workload,
                                 const std::vector<int>& node_index,
                                 const Communicator& group);

// Checks what the semantics need and the readers cannot see one field at a time: phases depend
// only on earlier ones, a compute phase's ranks are the job's and none twice, no rank is in two
// groups of one communicator, a send's groups are pairs, a compute phase's per-rank times match
// its ranks. Throws sim::InputError naming the phase
// or communicator. O(phases + ranks x communicators).
void validate(const StepWorkload& workload);

}  // namespace railsim::models
