// File: models/workload/expert_load.cpp
#include "models/workload/expert_load.hpp"

#include "sim/assert.hpp"
#include "sim/hash_mix.hpp"
#include "sim/index.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace railsim::models {

std::vector<double> expert_load(
    int experts, int top_k, double skew, std::uint64_t seed, int layer) {
  RAILSIM_ASSERT(top_k >= 1 && top_k <= experts && skew >= 0.0, "checked by the step's reader");
  // The experts in popularity order: sorted by a hash of (seed, layer, expert).
  const std::uint64_t layer_hash = sim::hash_mix(seed, static_cast<std::uint64_t>(layer));
  std::vector<int> order(sim::at(experts));
  std::iota(order.begin(), order.end(), 0);
  const auto key = [layer_hash](int e) {
    return sim::hash_mix(layer_hash, static_cast<std::uint64_t>(e));
  };
  std::sort(order.begin(), order.end(), [&key](int a, int b) { return key(a) < key(b); });
  // Weights by popularity rank, and the sum of those from rank q on.
  std::vector<double> weight(sim::at(experts));
  for (int q = 0; q < experts; ++q) {
    weight[sim::at(q)] = std::pow(static_cast<double>(q + 1), -skew);
  }
  std::vector<double> rest(sim::at(experts) + 1, 0.0);
  for (int q = experts - 1; q >= 0; --q) {
    rest[sim::at(q)] = rest[sim::at(q) + 1] + weight[sim::at(q)];
  }
  // Water-filling at 1 / top_k: the `capped` most popular take the cap, the others share what is
  // left in proportion to their weights; cap one more while the next would exceed it. Ends by
  // top_k capped at the latest, when nothing is left.
  const double cap = 1.0 / top_k;
  int capped = 0;
  while (capped < top_k &&
         weight[sim::at(capped)] * (1.0 - capped * cap) / rest[sim::at(capped)] > cap) {
    ++capped;
  }
  const double left = std::max(0.0, 1.0 - capped * cap);
  std::vector<double> share(sim::at(experts));
  for (int q = 0; q < experts; ++q) {
    share[sim::at(order[sim::at(q)])] =
        q < capped ? cap : weight[sim::at(q)] * left / rest[sim::at(capped)];
  }
  return share;
}

}  // namespace railsim::models
