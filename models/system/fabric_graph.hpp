// File: models/system/fabric_graph.hpp
// FabricGraph: the switches of a System's fabric and the cables between them, one directed edge
// per link, with every switch's distance in hops to each leaf over the cables in service. Both
// routings take their equal-cost next hops from here (ecmp.hpp, adaptive_lanes.hpp). Internal to
// models/system; Boost.Graph runs the searches, in fabric_graph.cpp only.
#pragma once

#include "sim/flow_network.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace railsim::models {

// A fabric switch as adaptive lanes see it (adaptive_lanes.hpp).
struct FabricSwitch {
  int tier = 0;      // 0 leaf, 1 spine, 2 core
  int position = 0;  // spines: index within the pod; leaves and cores: their index
  int fan_out = 0;   // distinct switches its uplinks reach
};

inline constexpr int kSwitchTiers = 3;

// A switch one hop closer to the target, and the link to it.
struct NextHop {
  std::size_t next = 0;
  std::uint32_t link = 0;
};

// Switches are vertices in the order added: the leaves first (leaf l is vertex l), then the
// spines and the cores (fabric_cabling.hpp). Each switch's edges keep the order they were added
// in, which is its port order. reaches() and next_hops() answer for the down links last given to
// compute_hops(), which must run again whenever one goes down.
class FabricGraph {
 public:
  void add_switch(FabricSwitch s);

  const FabricSwitch& switch_at(std::size_t vertex) const { return switches_[vertex]; }

  std::size_t switch_count() const { return switches_.size(); }

  // One direction of a cable: `link`, from switch `from` to switch `to`.
  void add_edge(std::size_t from, std::size_t to, sim::LinkId link);

  // The edges out of a switch, in port order; for a leaf, its uplinks.
  std::size_t out_degree(std::size_t vertex) const { return out_edges_[vertex].size(); }

  // Hops from every switch to each of the first `leaves` vertices, over the edges whose link is
  // not in `down_links` (by link index): a cable down in one direction counts in that one only.
  void compute_hops(int leaves, const std::vector<bool>& down_links);

  // Whether switch `vertex` reaches leaf `leaf` over the cables in service.
  bool reaches(std::size_t vertex, std::size_t leaf) const;

  // Whether `vertex` reaches `leaf` going down at every hop, as many hops as its tier: a leaf
  // itself, a spine over the leaf's uplink cable, a core through a spine of the leaf's pod. A
  // reduction tree's root must do so for every member's leaf (reduction_tree.hpp).
  bool descends_to(std::size_t vertex, std::size_t leaf) const {
    return hops(vertex, leaf) == switches_[vertex].tier;
  }

  // The next hops out of `here` that are in service and one hop closer to `leaf`, in port
  // order, into `choices` (cleared first).
  void next_hops(std::size_t here,
                 std::size_t leaf,
                 const std::vector<bool>& down_links,
                 std::vector<NextHop>& choices) const;

 private:
  // Hops from `vertex` to leaf `leaf`.
  int hops(std::size_t vertex, std::size_t leaf) const {
    return vertex == leaf ? 0 : hops_by_class_[class_of_leaf_[leaf]][vertex];
  }

  std::vector<FabricSwitch> switches_;
  std::vector<std::vector<NextHop>> out_edges_;  // by vertex, in port order
  // Leaves whose cables in service come down from the same switches are one class: every other
  // switch is as far from each of them (compute_hops). [class][vertex], the leaves themselves
  // aside; a fabric as designed has a class per pod or rail group, not per leaf.
  std::vector<std::vector<int>> hops_by_class_;
  std::vector<std::size_t> class_of_leaf_;
};

}  // namespace railsim::models
