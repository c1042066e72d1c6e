// File: models/collective/communicator.hpp
// Communicator: the ranks of one collective on a System. As nccl-tests with one process per
// node and -g G, rank r is GPU r % G of node r / G: the first G GPUs of each of the first
// `nodes` nodes.
#pragma once

namespace railsim::models {

struct Communicator {
  int nodes = 1;
  int gpus_per_node = 1;

  int ranks() const { return nodes * gpus_per_node; }

  int node_of(int rank) const { return rank / gpus_per_node; }

  int gpu_of(int rank) const { return rank % gpus_per_node; }

  int rank_of(int node, int gpu) const { return node * gpus_per_node + gpu; }
};

}  // namespace railsim::models
