// File: bench/max_min_bench.cpp
// One full max-min solve of F = 1k, 10k and 100k flows on a 4096-endpoint leaf/spine problem
// (16,384 links of 400 Gb/s; each flow crosses its uplink, leaf->spine, spine->leaf and its
// downlink, or uplink and downlink alone within a leaf). BM_SolveMaxMin times the public
// solve_max_min (validation, packing and a fresh solver included); BM_MaxMinSolverSolve times
// MaxMinSolver::solve alone on a prebuilt view with warm scratch space. items/s = flows solved/s.
#include "bench/leaf_spine.hpp"

#include "sim/bandwidth.hpp"
#include "sim/max_min.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

namespace railsim::bench {
namespace {

constexpr std::uint64_t kSeed = 20240601;

// F random flows between distinct endpoints, each on a random spine, all of weight 1 and
// uncapped. Same-leaf pairs (about 3% of them) cross two links, the rest four.
sim::SharingProblem leaf_spine_problem(std::size_t flow_count) {
  const LeafSpineShape shape;
  sim::SharingProblem problem;
  problem.link_capacity.assign(shape.link_count(), sim::gbps(400).bytes_per_s);
  std::mt19937_64 rng(kSeed);
  problem.flows.reserve(flow_count);
  for (std::size_t f = 0; f < flow_count; ++f) {
    const EndpointPair pair = random_pair(shape, rng);
    sim::FlowDemand demand;
    shape.append_path(pair.src, pair.dst, pair.spine, demand.links,
                      [](std::uint32_t link) { return sim::LinkIndex{link}; });
    problem.flows.push_back(std::move(demand));
  }
  return problem;
}

// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_SolveMaxMin(benchmark::State& state) {
  const auto flow_count = static_cast<std::size_t>(state.range(0));
  const sim::SharingProblem problem = leaf_spine_problem(flow_count);
  for (auto _ : state) {
    std::vector<double> rates = sim::solve_max_min(problem);
    benchmark::DoNotOptimize(rates.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The same problem packed once into the compressed rows the flow network hands the solver.
// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_MaxMinSolverSolve(benchmark::State& state) {
  const auto flow_count = static_cast<std::size_t>(state.range(0));
  const sim::SharingProblem problem = leaf_spine_problem(flow_count);
  const sim::PackedSharingProblem packed(problem);
  const sim::SharingProblemView view = packed.view();
  std::vector<double> rates(flow_count, 0.0);
  sim::MaxMinSolver solver;
  solver.solve(view, rates);  // Warms the scratch space, as the flow network's solver is warm.
  for (auto _ : state) {
    solver.solve(view, rates);
    benchmark::DoNotOptimize(rates.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["crossings"] = static_cast<double>(packed.links.size());
}

BENCHMARK(BM_SolveMaxMin)->Arg(1'000)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MaxMinSolverSolve)
    ->Arg(1'000)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace railsim::bench

BENCHMARK_MAIN();
