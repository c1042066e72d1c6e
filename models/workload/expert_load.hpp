// File: models/workload/expert_load.hpp
// How a mixture-of-experts router spreads a layer's tokens over its experts. Real routers are
// uneven: a few experts draw many tokens while the balancing loss only limits the spread
// (Fedus et al., "Switch Transformers", JMLR 2022, §2.2; DeepSeek-V3 report §2.1.2). The load is
// modelled as Zipf-distributed over the experts: the expert of popularity rank q (0 the most
// popular) draws a share proportional to 1 / (q + 1)^skew, so skew 0 is the perfectly balanced
// router and larger values concentrate tokens. Which expert holds which rank is drawn per layer
// from the seed (deterministic on every platform). No expert takes a token twice, so no share
// exceeds 1 / top_k: shares above it are capped and the excess spread over the others in
// proportion.
#pragma once

#include <cstdint>
#include <vector>

namespace railsim::models {

// Each expert's share of the layer's token choices (tokens x top_k), summing to 1. Requires
// 1 <= top_k <= experts and skew >= 0.
std::vector<double> expert_load(int experts, int top_k, double skew, std::uint64_t seed, int layer);

}  // namespace railsim::models
