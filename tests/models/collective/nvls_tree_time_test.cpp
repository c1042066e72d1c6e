// File: tests/models/collective/nvls_tree_time_test.cpp
// NVLS Tree's channel time against a timeline worked by hand, and its closed form over identical
// loops against the recurrence of nvls_tree_time.hpp stepped loop by loop, on arbitrary trees,
// heads, pieces, paces and delays (rapidcheck).
#include "models/collective/nvls_tree_time.hpp"

#include "tests/models/collective/tree_of.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace railsim::models {
namespace {

using sim::at;
using testing::tree_of;

// The header's recurrence, written out loop by loop and head by head.
double stepped_seconds(const RankTree& tree,
                       int heads,
                       const std::vector<sim::Bytes>& pieces,
                       const NvlsTreePaces& p) {
  const std::size_t nodes = tree.parent.size();
  std::vector<double> reduce(nodes, 0.0);
  std::vector<double> store(nodes, 0.0);
  std::vector<double> up(at(heads) * nodes, 0.0);
  std::vector<double> down(at(heads) * nodes, 0.0);
  double held = 0.0;
  const auto tau = [](sim::Bytes bytes, double pace) {
    return bytes.count > 0 ? static_cast<double>(bytes.count) * pace : 0.0;
  };
  for (std::size_t first = 0; first < pieces.size(); first += at(heads)) {
    const auto loop = pieces.begin() + static_cast<std::ptrdiff_t>(first);
    const sim::Bytes largest = *std::max_element(loop, loop + heads);
    std::vector<double> result(nodes, 0.0);
    for (std::size_t m = 0; m < nodes; ++m) {
      reduce[m] += tau(largest, p.reduce_s_per_byte[m]);
    }
    for (std::size_t h = 0; h < at(heads); ++h) {
      const auto cell = [&](int node) { return h * nodes + at(node); };
      const auto ready = [&](int node) {
        double t = reduce[at(node)] + p.switch_delay_s;
        for (const int child : tree.children[at(node)]) {
          t = std::max(t, up[cell(child)] + p.up_delay_s[cell(child)]);
        }
        return t;
      };
      const auto result_at = [&](int node) {
        return node == tree.root ? ready(node) : down[cell(node)] + p.down_delay_s[cell(node)];
      };
      for (const int m : tree.reduce_order) {
        if (m != tree.root) {
          up[cell(m)] =
              std::max(up[cell(m)], ready(m)) + tau(pieces[first + h], p.up_s_per_byte[cell(m)]);
        }
      }
      for (auto it = tree.reduce_order.rbegin(); it != tree.reduce_order.rend(); ++it) {
        if (*it != tree.root) {
          down[cell(*it)] = std::max(down[cell(*it)], result_at(tree.parent[at(*it)])) +
                            tau(pieces[first + h], p.down_s_per_byte[cell(*it)]);
        }
      }
      for (std::size_t m = 0; m < nodes; ++m) {
        result[m] = std::max(result[m], result_at(static_cast<int>(m)));
      }
    }
    for (std::size_t m = 0; m < nodes; ++m) {
      store[m] = std::max(store[m], result[m]) + tau(largest, p.store_s_per_byte[m]);
      held = std::max(held, store[m] + p.switch_delay_s);
    }
  }
  return held;
}

NvlsTreePaces uniform(int heads, int nodes) {
  const std::size_t cells = at(heads) * at(nodes);
  NvlsTreePaces p;
  p.reduce_s_per_byte.assign(at(nodes), 0.0);
  p.store_s_per_byte.assign(at(nodes), 0.0);
  p.up_s_per_byte.assign(cells, 0.0);
  p.down_s_per_byte.assign(cells, 0.0);
  p.up_delay_s.assign(cells, 0.0);
  p.down_delay_s.assign(cells, 0.0);
  return p;
}

TEST(NvlsTreeTime, TwoNodesWorkedByHand) {
  // Node 0 the root, node 1 its child; two heads, three loops of 1 MB pieces. Per piece a reduce
  // or a store takes 1 us, an edge up or down 2 us; the switch delay is 0.5 us, each edge's 1 us.
  // Loop 0 (either head): reduce 1, up from 1.5 to 3.5, the root holds the sum at 4.5, down to
  // 6.5, node 1 holds the result at 7.5, stores at 5.5 (root) and 8.5. Each later loop the edges
  // are the bottleneck: 2 us more each. Node 1's last store: 8.5 + 2 x 2 = 12.5 us, held 13.0.
  const RankTree tree = tree_of({-1, 0});
  const double us_per_mb = 1e-6 / 1e6;
  NvlsTreePaces p = uniform(2, 2);
  p.reduce_s_per_byte = p.store_s_per_byte = {us_per_mb, us_per_mb};
  for (const std::size_t cell : {std::size_t{1}, std::size_t{3}}) {  // node 1 under heads 0 and 1
    p.up_s_per_byte[cell] = p.down_s_per_byte[cell] = 2 * us_per_mb;
    p.up_delay_s[cell] = p.down_delay_s[cell] = 1e-6;
  }
  p.switch_delay_s = 0.5e-6;
  const std::vector<sim::Bytes> pieces(6, sim::bytes(1'000'000));
  EXPECT_NEAR(nvls_tree_channel_seconds(tree, 2, pieces, p), 13.0e-6, 1e-15);
  // A last loop of half pieces: its edges take 1 us each, its store 0.5 us. Node 1's up sends
  // from 7.5 (its previous up) to 8.5, the root holds the sum at 9.5, the edge down sends from
  // 10.5 (its previous) to 11.5, node 1 holds the result at 12.5 and stores it by 13.0: 13.5.
  std::vector<sim::Bytes> with_last = pieces;
  with_last.insert(with_last.end(), 2, sim::bytes(500'000));
  EXPECT_NEAR(nvls_tree_channel_seconds(tree, 2, with_last, p), 13.5e-6, 1e-15);
}

RC_GTEST_PROP(NvlsTreeTimeProperty, ClosedFormIsTheSteppedRecurrence, ()) {
  const int nodes = *rc::gen::inRange(1, 9);
  Parents parent(at(nodes), -1);
  for (int m = 1; m < nodes; ++m) {
    parent[at(m)] = *rc::gen::inRange(0, m);  // any earlier node: every shape of tree
  }
  const RankTree tree = tree_of(parent);
  const int heads = *rc::gen::inRange(1, 5);
  NvlsTreePaces p = uniform(heads, nodes);
  const auto pace = [] { return *rc::gen::inRange(0, 50) * 1e-9; };
  const auto delay = [] { return *rc::gen::inRange(0, 50) * 1e-7; };
  for (double& v : p.reduce_s_per_byte) v = pace();
  for (double& v : p.store_s_per_byte) v = pace();
  for (double& v : p.up_s_per_byte) v = pace();
  for (double& v : p.down_s_per_byte) v = pace();
  for (double& v : p.up_delay_s) v = delay();
  for (double& v : p.down_delay_s) v = delay();
  p.switch_delay_s = delay();
  // Some loops alike, then a few of any pieces (NCCL's last loops share out what is left).
  std::vector<sim::Bytes> loop(at(heads));
  for (sim::Bytes& piece : loop) {
    piece = sim::bytes(1000 * *rc::gen::inRange(0, 100));
  }
  std::vector<sim::Bytes> pieces;
  const int alike = *rc::gen::inRange(1, 8);
  for (int l = 0; l < alike; ++l) {
    pieces.insert(pieces.end(), loop.begin(), loop.end());
  }
  const int rest = *rc::gen::inRange(0, 4);
  for (int i = 0; i < rest * heads; ++i) {
    pieces.push_back(sim::bytes(1000 * *rc::gen::inRange(0, 100)));
  }
  const double stepped = stepped_seconds(tree, heads, pieces, p);
  const double closed = nvls_tree_channel_seconds(tree, heads, pieces, p);
  RC_ASSERT(std::abs(closed - stepped) <= 1e-9 * std::max(1e-6, stepped));
}

}  // namespace
}  // namespace railsim::models
