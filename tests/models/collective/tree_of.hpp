// File: tests/models/collective/tree_of.hpp
// A RankTree from each member's parent (-1 at the root), its lists as rank_tree makes them: for
// the closed-form tests of tree pipelines over trees of any shape.
#pragma once

#include "models/collective/tree_plan.hpp"
#include "sim/index.hpp"

namespace railsim::models::testing {

inline RankTree tree_of(const Parents& parent) {
  RankTree tree;
  tree.parent = parent;
  tree.children.assign(parent.size(), {});
  for (std::size_t r = 0; r < parent.size(); ++r) {
    if (parent[r] < 0) {
      tree.root = static_cast<int>(r);
    } else {
      tree.children[sim::at(parent[r])].push_back(static_cast<int>(r));
    }
  }
  tree.reduce_order = reduce_order(tree);
  return tree;
}

}  // namespace railsim::models::testing
