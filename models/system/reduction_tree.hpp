// File: models/system/reduction_tree.hpp
// ReductionTree: the switches of an InfiniBand SHARP aggregation tree over some NICs, and the links
// its streams take (System::reduction_tree builds it).
//
// SHARP's aggregation manager joins a group's NICs through the fat tree: each NIC's leaf sums what
// its members send up, passes the sum to its parent, and the root, the lowest switch above every
// member's leaf, holds the whole sum and multicasts it back down the same tree. One stream per
// NIC rail: NCCL's CollNet opens an aggregation flow per HCA rail, so the leaves must hold the
// same rail of every node (NVIDIA HPC-X, NCCL-RDMA-SHARP plugins). Every link of the tree carries
// each piece once each way, whatever the members under it: what makes SHARP's uplink traffic the
// size of one member's.
#pragma once

#include "sim/flow_network.hpp"

#include <vector>

namespace railsim::models {

struct ReductionTree {
  // The switches, the root first, each before its children: its parent's index (-1 at the root),
  // the link from it up to its parent and the one back down (unused at the root).
  std::vector<int> parent;
  std::vector<sim::LinkId> up;
  std::vector<sim::LinkId> down;
  // Per member: the index of its leaf, and the links from its memory up to the leaf (through its
  // NIC and port) and back down.
  std::vector<int> member_leaf;
  std::vector<std::vector<sim::LinkId>> member_up;
  std::vector<std::vector<sim::LinkId>> member_down;

  int switches() const { return static_cast<int>(parent.size()); }

  // Switch hops from a member's leaf to the root (every member's leaf is as deep).
  int depth() const;
};

}  // namespace railsim::models
