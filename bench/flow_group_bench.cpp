// File: bench/flow_group_bench.cpp
// Flow groups end to end: 1,000 (and, for scaling, 100) groups of 32 members on the 4096-endpoint
// leaf/spine fabric of flow_network_bench, each group a ring over 32 random endpoints (stage k
// sends from endpoint k to k+1, so every stage has its own uplink and downlink; cross-leaf stages
// share spine links with other groups and now and then with their own), run to completion. Groups
// start all at time zero (burst) or as a Poisson process (staggered). Reports time and events/s.
#include "bench/leaf_spine.hpp"

#include "sim/bandwidth.hpp"
#include "sim/bytes.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"
#include "sim/time.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace railsim::bench {
namespace {

constexpr std::uint64_t kSeed = 20240601;
constexpr sim::Bandwidth kLinkRate = sim::gbps(400);
constexpr std::uint32_t kStages = 32;

enum class Start : std::int64_t { kBurst = 0, kStaggered = 1 };

// Starts rings of kStages members, one group per ring; every member of a ring moves the same
// number of bytes, log-uniform in [1 MiB, 16 MiB] per ring.
class RingGroups {
 public:
  RingGroups(sim::Simulator& simulator, sim::FlowNetwork& network, const LeafSpineShape& shape)
      : sim_(simulator),
        network_(network),
        shape_(shape),
        size_(sim::mib(1), sim::mib(16)),
        endpoints_(shape.endpoints()) {
    std::iota(endpoints_.begin(), endpoints_.end(), 0U);
  }

  // Mean time between group starts that keeps `in_flight` groups running, were each alone.
  sim::Duration gap_for(double in_flight) const {
    const double alone_ps = size_.mean() / kLinkRate.bytes_per_s * 1e12;
    return sim::ps(std::llround(alone_ps / in_flight));
  }

  void start_ring() {
    // The ring's endpoints: the first kStages of a partial Fisher-Yates shuffle.
    for (std::uint32_t k = 0; k < kStages; ++k) {
      std::uniform_int_distribution<std::uint32_t> pick(k, shape_.endpoints() - 1);
      std::swap(endpoints_[k], endpoints_[pick(sim_.rng())]);
    }
    const std::uint64_t before = network_.solver_stats().variables_solved;
    const sim::GroupId group = network_.create_group();
    const sim::Bytes size = size_(sim_.rng());
    std::uniform_int_distribution<std::uint32_t> spine(0, shape_.spines - 1);
    for (std::uint32_t k = 0; k < kStages; ++k) {
      sim::FlowSpec spec;
      shape_.append_path(endpoints_[k], endpoints_[(k + 1) % kStages], spine(sim_.rng()), spec.path,
                         [](std::uint32_t link) { return sim::LinkId{link}; });
      spec.size = size;
      spec.group = group;
      spec.on_complete = [this](const sim::FlowRecord& record) {
        draining_seconds_ += sim::to_seconds(record.drained - record.start);
        last_drained_ = std::max(last_drained_, record.drained);
        ++completed_;
      };
      network_.start_flow(std::move(spec));
    }
    start_variables_ += network_.solver_stats().variables_solved - before;
  }

  std::uint64_t completed() const { return completed_; }

  // Rate variables re-solved while starting members, summed: the share of solver work that
  // member starts cause.
  std::uint64_t start_variables() const { return start_variables_; }

  // The time-average of groups in flight from time zero to the last drain (members of a ring
  // drain together, as they share one rate and one size).
  double groups_in_flight() const {
    const double span = sim::to_seconds(last_drained_ - sim::kTimeZero);
    return span > 0.0 ? draining_seconds_ / span / kStages : 0.0;
  }

 private:
  sim::Simulator& sim_;
  sim::FlowNetwork& network_;
  LeafSpineShape shape_;
  LogUniformSize size_;
  std::vector<std::uint32_t> endpoints_;
  std::uint64_t completed_ = 0;
  std::uint64_t start_variables_ = 0;
  double draining_seconds_ = 0.0;
  sim::SimTime last_drained_ = sim::kTimeZero;
};

// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_RingGroups(benchmark::State& state) {
  const auto groups = static_cast<std::uint32_t>(state.range(0));
  const auto start = static_cast<Start>(state.range(1));
  const LeafSpineShape shape;
  const double rss_before = proc_status_mib("VmRSS:");
  double events = 0.0;
  double flows = 0.0;
  double solves = 0.0;
  double variables = 0.0;
  double start_variables = 0.0;
  double in_flight = 0.0;
  double simulated_ms = 0.0;
  for (auto _ : state) {
    state.PauseTiming();
    auto simulator = std::make_unique<sim::Simulator>(kSeed);
    auto network = std::make_unique<sim::FlowNetwork>(*simulator);
    add_leaf_spine_links(*network, shape, kLinkRate, simulator->rng());
    auto rings = std::make_unique<RingGroups>(*simulator, *network, shape);
    std::exponential_distribution<double> gap_ps(1.0 /
                                                 static_cast<double>(rings->gap_for(50.0).count()));
    sim::SimTime when = sim::kTimeZero;
    for (std::uint32_t g = 0; g < groups; ++g) {
      simulator->schedule_at(when, [&rings] { rings->start_ring(); });
      if (start == Start::kStaggered) {
        when += sim::ps(std::llround(gap_ps(simulator->rng())));
      }
    }
    state.ResumeTiming();

    simulator->run();

    state.PauseTiming();
    if (rings->completed() != std::uint64_t{groups} * kStages) {
      state.SkipWithError("not every member was delivered");
    }
    events += static_cast<double>(simulator->events_processed());
    flows += static_cast<double>(rings->completed());
    solves += static_cast<double>(network->solver_stats().solves);
    variables += static_cast<double>(network->solver_stats().variables_solved);
    start_variables += static_cast<double>(rings->start_variables());
    in_flight += rings->groups_in_flight();
    simulated_ms += sim::to_seconds(simulator->now() - sim::kTimeZero) * 1e3;
    rings.reset();
    network.reset();
    simulator.reset();
    state.ResumeTiming();
  }
  const auto runs = static_cast<double>(state.iterations());
  state.counters["events_per_s"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["flows_per_s"] = benchmark::Counter(flows, benchmark::Counter::kIsRate);
  state.counters["solves_per_flow"] = solves / flows;
  state.counters["vars_per_solve"] = variables / solves;
  state.counters["start_share"] = start_variables / variables;
  state.counters["groups_in_flight"] = in_flight / runs;
  state.counters["sim_ms"] = simulated_ms / runs;
  state.counters["rss_before_MiB"] = rss_before;
  state.counters["peak_rss_MiB"] = proc_status_mib("VmHWM:");
}

BENCHMARK(BM_RingGroups)
    ->ArgNames({"groups", "staggered"})
    ->ArgsProduct({{100, 1000},
                   {static_cast<std::int64_t>(Start::kBurst),
                    static_cast<std::int64_t>(Start::kStaggered)}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace railsim::bench

BENCHMARK_MAIN();
