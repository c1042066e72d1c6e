// File: models/workload/step_workload.cpp
#include "models/workload/step_workload.hpp"

#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace railsim::models {
namespace {

std::size_t at(int index) { return static_cast<std::size_t>(index); }

}  // namespace

int job_rank(const StepWorkload& workload, int system_node, int gpu) {
  const auto it = std::find(workload.nodes.begin(), workload.nodes.end(), system_node);
  if (it == workload.nodes.end() || gpu < 0 || gpu >= workload.gpus_per_node) {
    return -1;
  }
  return static_cast<int>(it - workload.nodes.begin()) * workload.gpus_per_node + gpu;
}

void validate(const StepWorkload& workload) {
  if (workload.nodes.empty() || workload.gpus_per_node < 1) {
    throw sim::InputError("a step needs at least one node and one GPU per node");
  }
  for (std::size_t p = 0; p < workload.phases.size(); ++p) {
    const Phase& phase = workload.phases[p];
    for (const int q : phase.after) {
      if (q < 0 || at(q) >= p) {
        throw sim::InputError(
            fmt::format("phase {}: a phase waits only for phases written before it", phase.name));
      }
    }
    if (const auto* task = std::get_if<CollectiveTask>(&phase.task)) {
      if (task->communicator < 0 || at(task->communicator) >= workload.communicators.size()) {
        throw sim::InputError(fmt::format("phase {}: no such communicator", phase.name));
      }
    }
  }
  for (const StepCommunicator& comm : workload.communicators) {
    std::vector<int> seen(at(workload.ranks()), 0);
    for (const Communicator& group : comm.groups) {
      for (int r = 0; r < group.ranks(); ++r) {
        const int node = group.system_node(group.node_of(r));
        const int gpu = group.system_gpu(group.gpu_of(r));
        const int rank = job_rank(workload, node, gpu);
        if (rank < 0) {
          throw sim::InputError(fmt::format(
              "communicator {}: node {} GPU {} is not one of the job's", comm.name, node, gpu));
        }
        ++seen[at(rank)];
      }
    }
    const auto odd = std::find_if(seen.begin(), seen.end(), [](int n) { return n != 1; });
    if (odd != seen.end()) {
      const int rank = static_cast<int>(odd - seen.begin());
      throw sim::InputError(fmt::format(
          "communicator {}: rank {} (node {} GPU {}) is in {} of its groups, expected exactly 1",
          comm.name, rank, workload.nodes[at(rank / workload.gpus_per_node)],
          rank % workload.gpus_per_node, *odd));
    }
  }
}

}  // namespace railsim::models
