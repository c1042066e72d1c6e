// File: sim/max_min.cpp
// Progressive filling over a heap of link fill levels (see max_min.hpp for the mathematics).
#include "sim/max_min.hpp"

#include "sim/input_error.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace railsim::sim {
namespace {

void validate(const SharingProblem& problem) {
  for (std::size_t l = 0; l < problem.link_capacity.size(); ++l) {
    const double c = problem.link_capacity[l];
    if (!std::isfinite(c) || c < 0.0) {
      throw InputError("max-min problem: link " + std::to_string(l) + " has capacity " +
                       std::to_string(c) + ", expected a finite value >= 0");
    }
  }
  for (std::size_t f = 0; f < problem.flows.size(); ++f) {
    const FlowDemand& flow = problem.flows[f];
    if (!(flow.weight > 0.0) || !std::isfinite(flow.weight)) {
      throw InputError("max-min problem: flow " + std::to_string(f) + " has weight " +
                       std::to_string(flow.weight) + ", expected a finite value > 0");
    }
    if (!(flow.rate_cap > 0.0)) {
      throw InputError("max-min problem: flow " + std::to_string(f) + " has rate cap " +
                       std::to_string(flow.rate_cap) + ", expected a value > 0");
    }
    for (LinkIndex link : flow.links) {
      if (link >= problem.link_capacity.size()) {
        throw InputError("max-min problem: flow " + std::to_string(f) + " crosses link " +
                         std::to_string(link) + ", but there are only " +
                         std::to_string(problem.link_capacity.size()) + " links");
      }
    }
  }
}

// The heap's order: lowest fill level first, then lowest link index, so ties are deterministic.
constexpr auto kHeapOrder = [](const auto& a, const auto& b) {
  return a.level != b.level ? a.level > b.level : a.link > b.link;
};

}  // namespace

PackedSharingProblem::PackedSharingProblem(const SharingProblem& problem)
    : capacity(problem.link_capacity) {
  offsets.reserve(problem.flows.size() + 1);
  weights.reserve(problem.flows.size());
  caps.reserve(problem.flows.size());
  for (const FlowDemand& flow : problem.flows) {
    links.insert(links.end(), flow.links.begin(), flow.links.end());
    offsets.push_back(static_cast<std::uint32_t>(links.size()));
    weights.push_back(flow.weight);
    caps.push_back(flow.rate_cap);
  }
  times.assign(links.size(), 1);
}

std::vector<double> solve_max_min(const SharingProblem& problem) {
  validate(problem);
  const PackedSharingProblem packed(problem);
  std::vector<double> rates(problem.flows.size(), 0.0);
  MaxMinSolver solver;
  solver.solve(packed.view(), rates);
  return rates;
}

void MaxMinSolver::solve(const SharingProblemView& problem, std::span<double> rates) {
  const std::size_t link_count = problem.link_capacity.size();
  const std::size_t flow_count = problem.flow_count();

  // Transpose flow -> links into link -> flows (one entry per crossing), by counting sort.
  link_offsets_.assign(link_count + 1, 0);
  for (LinkIndex link : problem.flow_links) {
    ++link_offsets_[link + 1];
  }
  for (std::size_t l = 0; l < link_count; ++l) {
    link_offsets_[l + 1] += link_offsets_[l];
  }
  link_flows_.resize(problem.flow_links.size());
  active_crossings_.assign(link_count, 0);
  active_weight_.assign(link_count, 0.0);
  for (std::uint32_t f = 0; f < flow_count; ++f) {
    for (std::uint32_t i = problem.flow_offsets[f]; i < problem.flow_offsets[f + 1]; ++i) {
      const LinkIndex link = problem.flow_links[i];
      link_flows_[link_offsets_[link] + active_crossings_[link]++] = f;
      active_weight_[link] += problem.weight[f] * problem.link_times[i];
    }
  }
  residual_.assign(problem.link_capacity.begin(), problem.link_capacity.end());
  version_.assign(link_count, 0);
  frozen_.assign(flow_count, false);
  heap_.clear();
  capped_.clear();

  std::size_t unfrozen = 0;
  for (std::uint32_t f = 0; f < flow_count; ++f) {
    if (problem.flow_offsets[f] == problem.flow_offsets[f + 1]) {
      rates[f] = problem.rate_cap[f];  // Crosses nothing: only its cap limits it.
      frozen_[f] = true;
      continue;
    }
    ++unfrozen;
    if (std::isfinite(problem.rate_cap[f])) {
      capped_.push_back(f);
    }
  }
  std::sort(capped_.begin(), capped_.end(), [&](std::uint32_t a, std::uint32_t b) {
    const double la = problem.rate_cap[a] / problem.weight[a];
    const double lb = problem.rate_cap[b] / problem.weight[b];
    return la != lb ? la < lb : a < b;
  });
  for (LinkIndex l = 0; l < link_count; ++l) {
    if (active_crossings_[l] > 0) {
      push_level(l, 0.0);
    }
  }

  double level = 0.0;
  std::size_t next_capped = 0;
  while (unfrozen > 0) {
    // A stale entry's level is a lower bound of the link's true level, because levels only
    // rise as flows freeze; so a stale minimum is re-keyed in place of being discarded, and the
    // heap never holds more than one entry per link.
    while (!heap_.empty() && heap_.front().version != version_[heap_.front().link]) {
      const LinkIndex stale = heap_.front().link;
      std::pop_heap(heap_.begin(), heap_.end(), kHeapOrder);
      heap_.pop_back();
      if (active_crossings_[stale] > 0) {
        push_level(stale, level);
      }
    }
    while (next_capped < capped_.size() && frozen_[capped_[next_capped]]) {
      ++next_capped;
    }
    double link_level = kUnbounded;
    if (!heap_.empty()) {
      link_level = heap_.front().level;
    }
    double cap_level = kUnbounded;
    if (next_capped < capped_.size()) {
      cap_level = problem.rate_cap[capped_[next_capped]] / problem.weight[capped_[next_capped]];
    }
    if (cap_level <= link_level) {
      const std::uint32_t f = capped_[next_capped++];
      level = std::max(level, cap_level);
      freeze(problem, f, problem.rate_cap[f], rates);
      --unfrozen;
      continue;
    }
    const LinkIndex link = heap_.front().link;
    std::pop_heap(heap_.begin(), heap_.end(), kHeapOrder);
    heap_.pop_back();
    level = std::max(level, link_level);
    for (std::uint32_t i = link_offsets_[link]; i < link_offsets_[link + 1]; ++i) {
      const std::uint32_t f = link_flows_[i];
      if (!frozen_[f]) {
        freeze(problem, f, problem.weight[f] * level, rates);
        --unfrozen;
      }
    }
  }
}

void MaxMinSolver::freeze(const SharingProblemView& problem,
                          std::uint32_t flow,
                          double rate,
                          std::span<double> rates) {
  frozen_[flow] = true;
  rates[flow] = rate;
  const double weight = problem.weight[flow];
  for (std::uint32_t i = problem.flow_offsets[flow]; i < problem.flow_offsets[flow + 1]; ++i) {
    const LinkIndex link = problem.flow_links[i];
    residual_[link] -= rate * problem.link_times[i];
    active_weight_[link] -= weight * problem.link_times[i];
    --active_crossings_[link];
    ++version_[link];  // The link's heap entry is now stale; it is re-keyed when it surfaces.
  }
}

void MaxMinSolver::push_level(LinkIndex link, double level_floor) {
  // Rounding can leave a level a hair below the current one (or a residual a hair below 0);
  // the filling level never goes down.
  const double level = std::max(level_floor, residual_[link] / active_weight_[link]);
  heap_.push_back(LevelEntry{level, link, version_[link]});
  std::push_heap(heap_.begin(), heap_.end(), kHeapOrder);
}

}  // namespace railsim::sim
