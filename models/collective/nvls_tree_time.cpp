// File: models/collective/nvls_tree_time.cpp
// NVLS Tree's per-loop recurrence, written once over a value type: the steps' times in a loop
// stepped on its own, or the closed form's pair over a run of identical loops (see the header).
#include "models/collective/nvls_tree_time.hpp"

#include "sim/index.hpp"

#include <algorithm>
#include <limits>

namespace railsim::models {
namespace {

using sim::at;

// Over F identical loops, per step: `chain`, the longest path to its end through the loop's graph
// with one loop at each step; `best`, the longest with the F - 1 extra loops spent at the slowest
// step of the path: the step's time after F loops.
struct Looped {
  double chain = 0.0;
  double best = -std::numeric_limits<double>::infinity();
};

Looped shift(Looped v, double delay) { return {v.chain + delay, v.best + delay}; }

double shift(double v, double delay) { return v + delay; }

Looped later(Looped a, Looped b) { return {std::max(a.chain, b.chain), std::max(a.best, b.best)}; }

double later(double a, double b) { return std::max(a, b); }

// A step's end in one loop: once its previous loop's ended and its inputs are held, `tau` seconds.
struct Stepped {
  double operator()(double previous, double input, double tau) const {
    return std::max(previous, input) + tau;
  }
};

// Over `extra` + 1 identical loops from the start: a path ending at this step either spends its
// extra loops here (after the longest chain into it) or did so earlier.
struct Closed {
  double extra = 0.0;

  Looped operator()(Looped /*previous*/, Looped input, double tau) const {
    return {tau + input.chain, tau + std::max(extra * tau + input.chain, input.best)};
  }
};

template <class Value>
struct State {
  std::vector<Value> reduce;  // per node
  std::vector<Value> store;
  std::vector<Value> up;  // per head x nodes + node
  std::vector<Value> down;
  std::vector<Value> result;  // per node: when every head's result is held there

  State(int heads, int nodes)
      : reduce(at(nodes)),
        store(at(nodes)),
        up(at(heads) * at(nodes)),
        down(at(heads) * at(nodes)),
        result(at(nodes)) {}
};

double tau(sim::Bytes bytes, double s_per_byte) {
  return bytes.count > 0 ? static_cast<double>(bytes.count) * s_per_byte : 0.0;
}

// One loop of the recurrence, its pieces one per head, every step timed by `step`.
template <class Value, class Step>
void one_loop(const RankTree& tree,
              std::span<const sim::Bytes> loop,
              const NvlsTreePaces& paces,
              const Step& step,
              State<Value>& s) {
  const std::size_t nodes = s.reduce.size();
  const sim::Bytes largest = *std::max_element(loop.begin(), loop.end());
  for (std::size_t m = 0; m < nodes; ++m) {
    s.reduce[m] = step(s.reduce[m], Value{}, tau(largest, paces.reduce_s_per_byte[m]));
  }
  std::fill(s.result.begin(), s.result.end(), Value{});
  for (std::size_t h = 0; h < loop.size(); ++h) {
    const sim::Bytes piece = loop[h];
    const std::size_t base = h * nodes;
    const auto ready = [&](int node) {
      Value t = shift(s.reduce[at(node)], paces.switch_delay_s);
      for (const int child : tree.children[at(node)]) {
        const std::size_t cell = base + at(child);
        t = later(t, shift(s.up[cell], paces.up_delay_s[cell]));
      }
      return t;
    };
    for (const int m : tree.reduce_order) {
      if (m != tree.root) {
        const std::size_t cell = base + at(m);
        s.up[cell] = step(s.up[cell], ready(m), tau(piece, paces.up_s_per_byte[cell]));
      }
    }
    const Value root_ready = ready(tree.root);
    const auto held_result = [&](int node) {
      const std::size_t cell = base + at(node);
      return node == tree.root ? root_ready : shift(s.down[cell], paces.down_delay_s[cell]);
    };
    for (auto it = tree.reduce_order.rbegin(); it != tree.reduce_order.rend(); ++it) {
      if (*it != tree.root) {
        const std::size_t cell = base + at(*it);
        s.down[cell] = step(s.down[cell], held_result(tree.parent[at(*it)]),
                            tau(piece, paces.down_s_per_byte[cell]));
      }
    }
    for (std::size_t m = 0; m < nodes; ++m) {
      s.result[m] = later(s.result[m], held_result(static_cast<int>(m)));
    }
  }
  for (std::size_t m = 0; m < nodes; ++m) {
    s.store[m] = step(s.store[m], s.result[m], tau(largest, paces.store_s_per_byte[m]));
  }
}

}  // namespace

double nvls_tree_channel_seconds(const RankTree& tree,
                                 int heads,
                                 std::span<const sim::Bytes> pieces,
                                 const NvlsTreePaces& paces) {
  const auto nodes = static_cast<int>(tree.parent.size());
  const std::size_t per_loop = at(heads);
  const std::size_t loops = pieces.size() / per_loop;
  if (loops == 0) {
    return 0.0;
  }
  const auto loop = [&](std::size_t l) { return pieces.subspan(l * per_loop, per_loop); };
  // The leading loops alike, in closed form; its steps never start before 0, as the stepped
  // state's do not.
  std::size_t alike = 1;
  while (alike < loops && std::equal(loop(0).begin(), loop(0).end(), loop(alike).begin())) {
    ++alike;
  }
  State<Looped> closed(heads, nodes);
  one_loop(tree, loop(0), paces, Closed{static_cast<double>(alike - 1)}, closed);
  State<double> s(heads, nodes);
  const auto time_of = [](const std::vector<Looped>& from, std::vector<double>& to) {
    std::transform(from.begin(), from.end(), to.begin(),
                   [](const Looped& v) { return std::max(0.0, v.best); });
  };
  time_of(closed.reduce, s.reduce);
  time_of(closed.store, s.store);
  time_of(closed.up, s.up);
  time_of(closed.down, s.down);
  for (std::size_t l = alike; l < loops; ++l) {
    one_loop(tree, loop(l), paces, Stepped{}, s);
  }
  // Stores only grow, loop by loop: the last of each node is its latest.
  return *std::max_element(s.store.begin(), s.store.end()) + paces.switch_delay_s;
}

}  // namespace railsim::models
