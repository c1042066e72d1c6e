// File: sim/max_min.hpp
// Weighted max-min fair sharing of link capacities, with per-flow rate caps.
//
// The problem: links l with capacity C_l (bytes/s); flows f, each crossing a list of links, with
// a weight w_f > 0 and a cap c_f. An allocation r is max-min fair when no flow can get more
// without taking from a flow whose rate per unit weight is already no larger. Equivalently,
// every flow is either at its cap or crosses a saturated link on which its r_f / w_f is the
// largest (its bottleneck).
//
// Progressive filling computes it: raise a level t from 0, every unfrozen flow running at w_f t;
// when a link fills up, the flows on it freeze at their current rate; when a flow reaches its
// cap, it freezes there. Example: links A (10) and B (4); flow 1 on A, flow 2 on A and B,
// flow 3 on B, all weight 1. B fills first at t = 2 (flows 2 and 3 get 2 each); A then has
// 10 - 2 = 8 left for flow 1, which gets 8.
//
// A flow that crosses a link k times (lists it k times, or once with k in the compressed view)
// consumes k times its rate there: this is how a flow group (one rate variable for every stage
// of a pipeline) crosses a link that two stages share.
//
// Cost: O(P log L) for P link crossings in all and L links, using a heap of link fill levels.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace railsim::sim {

using LinkIndex = std::uint32_t;

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// Tolerance of the solver's arithmetic, relative to a link's capacity: a link loaded to within
// this fraction of its capacity counts as full, and no allocation exceeds a capacity by more.
inline constexpr double kRateEpsilon = 1e-9;

struct FlowDemand {
  std::vector<LinkIndex> links;  // links crossed; a repeated link is crossed that many times
  double weight = 1.0;           // share of a bottleneck relative to other flows, > 0
  double rate_cap = kUnbounded;  // bytes/s, > 0
};

struct SharingProblem {
  std::vector<double> link_capacity;  // bytes/s, >= 0
  std::vector<FlowDemand> flows;
};

// Rate of every flow (bytes/s), in the order of problem.flows. A flow that crosses no link gets
// its cap (unbounded if it has none). Throws InputError for a link index out of range, a
// negative or non-finite capacity, a weight <= 0 or a cap <= 0.
[[nodiscard]] std::vector<double> solve_max_min(const SharingProblem& problem);

// The same problem in compressed rows, as the flow network builds it without allocating:
// flow f crosses flow_links[flow_offsets[f] .. flow_offsets[f + 1]), link_times[i] times
// flow_links[i] (a link listed once with its count, not repeated: a group of many stages
// crosses a shared link many times).
struct SharingProblemView {
  std::span<const double> link_capacity;
  std::span<const std::uint32_t> flow_offsets;  // size = flows + 1
  std::span<const LinkIndex> flow_links;
  std::span<const std::uint32_t> link_times;  // size = flow_links.size(), each >= 1
  std::span<const double> weight;
  std::span<const double> rate_cap;

  std::size_t flow_count() const { return weight.size(); }
};

// A SharingProblem packed into compressed rows, a repeated link listed again with count one:
// what solve_max_min hands the solver, and what a benchmark of the solver alone times. The
// problem must outlive it (the view reads its capacities).
struct PackedSharingProblem {
  explicit PackedSharingProblem(const SharingProblem& problem);

  SharingProblemView view() const {
    return SharingProblemView{capacity, offsets, links, times, weights, caps};
  }

  std::span<const double> capacity;
  std::vector<std::uint32_t> offsets{0};
  std::vector<LinkIndex> links;
  std::vector<std::uint32_t> times;
  std::vector<double> weights;
  std::vector<double> caps;
};

// Progressive filling with reusable scratch space; solve() does not validate its input.
class MaxMinSolver {
 public:
  void solve(const SharingProblemView& problem, std::span<double> rates);

 private:
  struct LevelEntry {
    double level;
    LinkIndex link;
    std::uint32_t version;
  };

  void freeze(const SharingProblemView& problem,
              std::uint32_t flow,
              double rate,
              std::span<double> rates);
  void push_level(LinkIndex link, double level_floor);

  std::vector<std::uint32_t> link_offsets_;
  std::vector<std::uint32_t> link_flows_;
  std::vector<double> residual_;       // capacity not yet taken by frozen flows
  std::vector<double> active_weight_;  // sum of unfrozen flows' weights, times their crossings
  std::vector<std::uint32_t> active_crossings_;  // entries of unfrozen flows
  std::vector<std::uint32_t> version_;
  std::vector<LevelEntry> heap_;
  std::vector<std::uint32_t> capped_;
  std::vector<bool> frozen_;
};

}  // namespace railsim::sim
