// File: models/workload/step_workload.cpp
#include "models/workload/step_workload.hpp"

#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

namespace railsim::models {
namespace {

using sim::at;

void check_compute_ranks(const StepWorkload& workload, const Phase& phase) {
  std::vector<bool> seen(at(workload.ranks()), false);
  for (const int r : phase.ranks) {
    if (r < 0 || r >= workload.ranks()) {
      throw sim::InputError(fmt::format("phase {}: rank {} is not one of the job's 0 to {}",
                                        phase.name, r, workload.ranks() - 1));
    }
    if (seen[at(r)]) {
      throw sim::InputError(fmt::format("phase {}: rank {} is listed twice", phase.name, r));
    }
    seen[at(r)] = true;
  }
  const auto& per_rank = std::get<ComputeTask>(phase.task).per_rank;
  const std::size_t ranks = phase.ranks.empty() ? at(workload.ranks()) : phase.ranks.size();
  if (!per_rank.empty() && per_rank.size() != ranks) {
    throw sim::InputError(fmt::format("phase {}: {} per-rank times for {} ranks", phase.name,
                                      per_rank.size(), ranks));
  }
}

void check_groups(const StepWorkload& workload,
                  const std::vector<int>& node_index,
                  const StepCommunicator& comm) {
  std::vector<bool> seen(at(workload.ranks()), false);
  for (const Communicator& group : comm.groups) {
    const std::vector<int> ranks = group_job_ranks(workload, node_index, group);
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const int node = group.system_node(group.node_of(static_cast<int>(i)));
      const int gpu = group.system_gpu(group.gpu_of(static_cast<int>(i)));
      if (ranks[i] < 0) {
        throw sim::InputError(fmt::format("communicator {}: node {} GPU {} is not one of the job's",
                                          comm.name, node, gpu));
      }
      if (seen[at(ranks[i])]) {
        throw sim::InputError(
            fmt::format("communicator {}: rank {} (node {} GPU {}) is in two of its groups, "
                        "expected at most one",
                        comm.name, ranks[i], node, gpu));
      }
      seen[at(ranks[i])] = true;
    }
  }
}

}  // namespace

int communicator_of(const Phase& phase) {
  if (const auto* collective = std::get_if<CollectiveTask>(&phase.task)) {
    return collective->communicator;
  }
  if (const auto* send = std::get_if<SendTask>(&phase.task)) {
    return send->communicator;
  }
  return -1;
}

int job_rank(const StepWorkload& workload, int system_node, int gpu) {
  const auto it = std::find(workload.nodes.begin(), workload.nodes.end(), system_node);
  if (it == workload.nodes.end() || gpu < 0 || gpu >= workload.gpus_per_node) {
    return -1;
  }
  return static_cast<int>(it - workload.nodes.begin()) * workload.gpus_per_node + gpu;
}

std::vector<int> job_node_index(const StepWorkload& workload) {
  int highest = -1;
  for (const int node : workload.nodes) {
    highest = std::max(highest, node);
  }
  std::vector<int> index(at(highest + 1), -1);
  for (std::size_t i = 0; i < workload.nodes.size(); ++i) {
    index[at(workload.nodes[i])] = static_cast<int>(i);
  }
  return index;
}

std::vector<int> group_job_ranks(const StepWorkload& workload,
                                 const std::vector<int>& node_index,
                                 const Communicator& group) {
  std::vector<int> ranks;
  ranks.reserve(at(group.ranks()));
  for (int r = 0; r < group.ranks(); ++r) {
    const int node = group.system_node(group.node_of(r));
    const int gpu = group.system_gpu(group.gpu_of(r));
    const int local = node >= 0 && at(node) < node_index.size() ? node_index[at(node)] : -1;
    ranks.push_back(local < 0 || gpu < 0 || gpu >= workload.gpus_per_node
                        ? -1
                        : local * workload.gpus_per_node + gpu);
  }
  return ranks;
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
    const int comm = communicator_of(phase);
    if (comm < 0) {
      check_compute_ranks(workload, phase);
      continue;
    }
    if (!phase.ranks.empty()) {
      throw sim::InputError(fmt::format(
          "phase {}: only a compute phase lists ranks; a collective or send runs on its "
          "communicator's groups",
          phase.name));
    }
    if (at(comm) >= workload.communicators.size()) {
      throw sim::InputError(fmt::format("phase {}: no such communicator", phase.name));
    }
    if (const auto* task = std::get_if<CollectiveTask>(&phase.task); task && task->calls < 1) {
      throw sim::InputError(
          fmt::format("phase {}: {} calls, expected at least 1", phase.name, task->calls));
    }
    if (std::holds_alternative<SendTask>(phase.task)) {
      for (const Communicator& group : workload.communicators[at(comm)].groups) {
        if (group.ranks() != 2) {
          throw sim::InputError(fmt::format(
              "phase {}: a send's communicator {} needs groups of two ranks (sender, receiver), "
              "not {}",
              phase.name, workload.communicators[at(comm)].name, group.ranks()));
        }
      }
    }
  }
  const std::vector<int> node_index = job_node_index(workload);
  for (const StepCommunicator& comm : workload.communicators) {
    check_groups(workload, node_index, comm);
  }
}

}  // namespace railsim::models
