// File: models/system/reduction_tree.cpp
// System::reduction_tree (system.hpp): the root above every member's leaf, and the tree of the
// fabric's down paths from it to those leaves.
#include "models/system/reduction_tree.hpp"

#include "models/system/node_routes.hpp"
#include "models/system/system.hpp"
#include "models/system/system_links.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <optional>

namespace railsim::models {
namespace {

using sim::at;

// The lowest switch that descends to every one of `leaves`, the tree-th of those at that tier, so
// that the trees of several rails spread over the spines as SHARP's aggregation manager spreads
// them.
std::optional<std::size_t> root_above(const FabricGraph& fabric,
                                      const std::vector<std::size_t>& leaves,
                                      int tree) {
  for (int tier = 0; tier < kSwitchTiers; ++tier) {
    std::vector<std::size_t> candidates;
    for (std::size_t v = 0; v < fabric.switch_count(); ++v) {
      if (fabric.switch_at(v).tier == tier &&
          std::all_of(leaves.begin(), leaves.end(),
                      [&](std::size_t leaf) { return fabric.descends_to(v, leaf); })) {
        candidates.push_back(v);
      }
    }
    if (!candidates.empty()) {
      return candidates[at(tree) % candidates.size()];
    }
  }
  return std::nullopt;
}

}  // namespace

int ReductionTree::depth() const {
  int hops = 0;
  if (!member_leaf.empty()) {
    for (int s = member_leaf.front(); parent[at(s)] >= 0; s = parent[at(s)]) {
      ++hops;
    }
  }
  return hops;
}

ReductionTree System::reduction_tree(const std::vector<Endpoint>& members, int tree) const {
  const SystemLinks& m = *links_;
  std::vector<std::size_t> member_leaves;
  member_leaves.reserve(members.size());
  for (const Endpoint& end : members) {
    member_leaves.push_back(at(leaf_of(end.node, end.nic)));
  }
  std::vector<std::size_t> leaves = member_leaves;
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  const std::optional<std::size_t> root = root_above(m.fabric, leaves, tree);
  if (!root) {
    throw sim::InputError(fmt::format(
        "no switch lies above all {} leaves of the reduction tree: its NICs are in different "
        "planes, or the cables to some leaves are down",
        leaves.size()));
  }
  ReductionTree out;
  std::vector<int> index_of(m.fabric.switch_count(), -1);
  index_of[*root] = 0;
  out.parent.push_back(-1);
  out.up.emplace_back();
  out.down.emplace_back();
  // Down from the root to each leaf, at each switch the tree-th of its next hops; a switch keeps
  // the parent it was first reached from, so the union of the walks is a tree.
  std::vector<NextHop> choices;
  for (const std::size_t leaf : leaves) {
    for (std::size_t here = *root; here != leaf;) {
      m.fabric.next_hops(here, leaf, m.down_links, choices);
      const NextHop& hop = choices[at(tree) % choices.size()];
      if (index_of[hop.next] < 0) {
        const sim::LinkId down{hop.link};
        const Attachment& cable = m.cables[hop.link];
        const sim::LinkId up = cable.up.index == hop.link ? cable.down : cable.up;
        if (is_link_down(up)) {
          throw sim::InputError(fmt::format("link {} is down: the reduction tree cannot climb it",
                                            m.net.link(up).name));
        }
        index_of[hop.next] = out.switches();
        out.parent.push_back(index_of[here]);
        out.up.push_back(up);
        out.down.push_back(down);
      }
      here = hop.next;
    }
  }
  for (std::size_t i = 0; i < members.size(); ++i) {
    out.member_leaf.push_back(index_of[member_leaves[i]]);
    std::vector<sim::LinkId>& up = out.member_up.emplace_back();
    NodePathBuilder climb(*this, m, up);
    climb.memory_to_nic(members[i]);
    climb.port(members[i], true);
    std::vector<sim::LinkId>& down = out.member_down.emplace_back();
    NodePathBuilder descend(*this, m, down);
    descend.port(members[i], false);
    descend.nic_to_memory(members[i]);
  }
  return out;
}

}  // namespace railsim::models
