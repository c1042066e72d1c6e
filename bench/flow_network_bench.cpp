// File: bench/flow_network_bench.cpp
// End-to-end flow-level simulation with Simulator + FlowNetwork: 10k, 100k and 1M flows arrive
// as a Poisson process between random endpoints of a 4096-endpoint leaf/spine fabric (128 leaves
// x 32 endpoints, 32 spines, 400 Gb/s everywhere), sizes log-uniform in [64 KiB, 16 MiB], at a
// rate that keeps about 1,000 flows draining. Reports events/s, flows/s, the average number of
// draining flows, the solver's sub-problem size and the process's peak memory (VmHWM).
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
#include <random>

namespace railsim::bench {
namespace {

constexpr std::uint64_t kSeed = 20240601;
constexpr sim::Bandwidth kLinkRate = sim::gbps(400);
constexpr double kTargetDraining = 1000.0;

// Flows in the network exceed size / line rate because they share links; this factor, measured
// on this workload (docs/performance.md), brings the time-average of draining flows to ~1,000.
constexpr double kSharingSlowdown = 1.65;

// A Poisson source of flows: each arrival starts one flow and schedules the next, until
// `flow_count` have started. Completion callbacks add up each flow's draining time inside the
// arrival window, whose sum over the window's length is the exact time-average of draining flows
// there; the count seen at arrivals estimates the same average (Poisson arrivals see time
// averages), so the two should agree.
class PoissonTraffic {
 public:
  PoissonTraffic(sim::Simulator& simulator,
                 sim::FlowNetwork& network,
                 const LeafSpineShape& shape,
                 std::uint64_t flow_count)
      : sim_(simulator),
        network_(network),
        shape_(shape),
        flow_count_(flow_count),
        size_(sim::kib(64), sim::mib(16)),
        gap_ps_(kTargetDraining /
                (kSharingSlowdown * to_ps(size_.mean() / kLinkRate.bytes_per_s))) {}

  void start() { schedule_next(); }

  std::uint64_t completed() const { return completed_; }

  double draining_seen_at_arrivals() const {
    return static_cast<double>(draining_seen_) /
           static_cast<double>(std::max<std::uint64_t>(1, started_));
  }

  // The time-average of draining flows over the arrival window [0, last arrival].
  double time_average_draining() const {
    const double span = sim::to_seconds(last_arrival_ - sim::kTimeZero);
    return span > 0.0 ? draining_seconds_ / span : 0.0;
  }

  double mean_gap_ns() const { return 1e-3 / gap_ps_.lambda(); }

 private:
  static double to_ps(double seconds) { return seconds * 1e12; }

  void schedule_next() {
    const auto gap = static_cast<std::int64_t>(std::llround(gap_ps_(sim_.rng())));
    sim_.schedule_after(sim::ps(gap), [this] { arrive(); });
  }

  void arrive() {
    draining_seen_ += network_.draining_flow_count();
    const EndpointPair pair = random_pair(shape_, sim_.rng());
    sim::FlowSpec spec;
    shape_.append_path(pair.src, pair.dst, pair.spine, spec.path,
                       [](std::uint32_t link) { return sim::LinkId{link}; });
    spec.size = size_(sim_.rng());
    spec.tag = started_;
    spec.on_complete = [this](const sim::FlowRecord& record) {
      // Only the part of the flow's draining inside the arrival window counts.
      const sim::SimTime end =
          started_ < flow_count_ ? record.drained : std::min(record.drained, last_arrival_);
      draining_seconds_ += sim::to_seconds(end - record.start);
      ++completed_;
    };
    network_.start_flow(std::move(spec));
    if (++started_ < flow_count_) {
      schedule_next();
    } else {
      last_arrival_ = sim_.now();
    }
  }

  sim::Simulator& sim_;
  sim::FlowNetwork& network_;
  LeafSpineShape shape_;
  std::uint64_t flow_count_;
  LogUniformSize size_;
  std::exponential_distribution<double> gap_ps_;  // rate in arrivals per picosecond
  std::uint64_t started_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t draining_seen_ = 0;
  double draining_seconds_ = 0.0;
  sim::SimTime last_arrival_ = sim::kTimeZero;
};

// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_PoissonFlows(benchmark::State& state) {
  const auto flow_count = static_cast<std::uint64_t>(state.range(0));
  const LeafSpineShape shape;
  const double rss_before = proc_status_mib("VmRSS:");
  double events = 0.0;
  double flows = 0.0;
  double time_average = 0.0;
  double at_arrivals = 0.0;
  double solves = 0.0;
  double variables = 0.0;
  double simulated_ms = 0.0;
  double gap_ns = 0.0;
  for (auto _ : state) {
    state.PauseTiming();
    auto simulator = std::make_unique<sim::Simulator>(kSeed);
    auto network = std::make_unique<sim::FlowNetwork>(*simulator);
    add_leaf_spine_links(*network, shape, kLinkRate, simulator->rng());
    auto traffic = std::make_unique<PoissonTraffic>(*simulator, *network, shape, flow_count);
    traffic->start();
    state.ResumeTiming();

    simulator->run();

    state.PauseTiming();
    if (traffic->completed() != flow_count) {
      state.SkipWithError("not every flow was delivered");
    }
    events += static_cast<double>(simulator->events_processed());
    flows += static_cast<double>(traffic->completed());
    time_average += traffic->time_average_draining();
    at_arrivals += traffic->draining_seen_at_arrivals();
    solves += static_cast<double>(network->solver_stats().solves);
    variables += static_cast<double>(network->solver_stats().variables_solved);
    simulated_ms += sim::to_seconds(simulator->now() - sim::kTimeZero) * 1e3;
    gap_ns = traffic->mean_gap_ns();
    traffic.reset();
    network.reset();
    simulator.reset();
    state.ResumeTiming();
  }
  const auto runs = static_cast<double>(state.iterations());
  state.counters["events_per_s"] = benchmark::Counter(events, benchmark::Counter::kIsRate);
  state.counters["flows_per_s"] = benchmark::Counter(flows, benchmark::Counter::kIsRate);
  state.counters["events_per_flow"] = events / flows;
  state.counters["avg_draining"] = time_average / runs;
  state.counters["draining_at_arrivals"] = at_arrivals / runs;
  state.counters["solves_per_flow"] = solves / flows;
  state.counters["vars_per_solve"] = variables / solves;
  state.counters["sim_ms"] = simulated_ms / runs;
  state.counters["gap_ns"] = gap_ns;
  state.counters["rss_before_MiB"] = rss_before;
  state.counters["peak_rss_MiB"] = proc_status_mib("VmHWM:");
}

BENCHMARK(BM_PoissonFlows)->Arg(10'000)->Iterations(5)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PoissonFlows)->Arg(100'000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PoissonFlows)->Arg(1'000'000)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace railsim::bench

BENCHMARK_MAIN();
