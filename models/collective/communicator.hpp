// File: models/collective/communicator.hpp
// Communicator: the ranks of one collective on a System, as the cartesian product of a list of
// the system's nodes and a list of GPUs within each node. As nccl-tests with one process per
// node and -g G, rank r is local GPU r % G of local node r / G; by default the local lists are
// the first G GPUs of the first `nodes` nodes, and `node_ids` / `gpu_ids` place them elsewhere
// (Megatron's tensor, data and pipeline groups: {nodes 4..7} x {gpu 3}, {node 5} x {gpus 0..7}).
//
// The collective code indexes ranks, nodes and GPUs locally (arrays sized by `nodes` and
// `gpus_per_node`) and maps to the system's indices only where it asks the System something.
#pragma once

#include "sim/assert.hpp"

#include <cstddef>
#include <utility>
#include <vector>

namespace railsim::models {

struct Communicator {
  int nodes = 1;
  int gpus_per_node = 1;
  // The system node of each local node, in order, `nodes` of them; empty: 0 .. nodes - 1.
  std::vector<int> node_ids = {};
  // The system GPU (its index within its node) of each local GPU, the same on every node,
  // `gpus_per_node` of them; empty: 0 .. gpus_per_node - 1.
  std::vector<int> gpu_ids = {};

  int ranks() const { return nodes * gpus_per_node; }

  int node_of(int rank) const { return rank / gpus_per_node; }

  int gpu_of(int rank) const { return rank % gpus_per_node; }

  int rank_of(int node, int gpu) const { return node * gpus_per_node + gpu; }

  int system_node(int local_node) const {
    RAILSIM_ASSERT(local_node >= 0 && local_node < nodes, "a local node of the communicator");
    return node_ids.empty() ? local_node : node_ids[static_cast<std::size_t>(local_node)];
  }

  int system_gpu(int local_gpu) const {
    RAILSIM_ASSERT(local_gpu >= 0 && local_gpu < gpus_per_node, "a local GPU of the communicator");
    return gpu_ids.empty() ? local_gpu : gpu_ids[static_cast<std::size_t>(local_gpu)];
  }
};

// The communicator over `node_ids` x `gpu_ids` (system indices), its counts their sizes.
inline Communicator communicator_on(std::vector<int> node_ids, std::vector<int> gpu_ids) {
  Communicator comm;
  comm.nodes = static_cast<int>(node_ids.size());
  comm.gpus_per_node = static_cast<int>(gpu_ids.size());
  comm.node_ids = std::move(node_ids);
  comm.gpu_ids = std::move(gpu_ids);
  return comm;
}

}  // namespace railsim::models
