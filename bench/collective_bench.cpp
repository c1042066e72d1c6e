// File: bench/collective_bench.cpp
// One collective at cluster scale: an 8 GiB ring AllReduce (Simple protocol, NCCL's channel
// count, pipelined execution) over every GPU of 16, 128, 1024 and 4096 dgx-h100 nodes (128 to
// 32,768 GPUs); a 1 GiB Tree and NVLS Tree AllReduce over 16, 128 and 1024; a 1 GiB PAT AllGather
// over one GPU of each of 16, 128 and 1024 nodes; a 1 GiB AllToAll over 16 to 128 nodes; the
// 8 GiB AllReduce NCCL's tuner picks on 1 and 20 GB200 NVL72 racks. Times building the System and
// running the collective separately, and reports the simulated bus bandwidth and the process's peak
// memory (VmHWM). docs/performance.md has the fabric of each size and the commands.
#include "bench/leaf_spine.hpp"

#include "models/collective/collective_run.hpp"
#include "models/fabric/fabric_presets.hpp"
#include "models/hardware/node_presets.hpp"
#include "models/system/system.hpp"
#include "sim/bytes.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

namespace railsim::bench {
namespace {

constexpr std::uint64_t kSeed = 20240601;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// `request` on a System of `spec`, built and run once per run (registered with one iteration),
// so the counters are that iteration's.
void run_on(benchmark::State& state,
            const models::SystemSpec& spec,
            const models::CollectiveRequest& request) {
  const double rss_before = proc_status_mib("VmRSS:");
  double build_s = 0.0;
  double run_s = 0.0;
  models::CollectiveResult result;
  std::uint64_t events = 0;
  for (auto _ : state) {
    const auto build_start = std::chrono::steady_clock::now();
    auto simulator = std::make_unique<sim::Simulator>(kSeed);
    auto network = std::make_unique<sim::FlowNetwork>(*simulator);
    auto system = std::make_unique<models::System>(spec, *network);
    build_s = seconds_since(build_start);

    const auto run_start = std::chrono::steady_clock::now();
    result = models::run_collective(*system, *network, *simulator, request);
    run_s = seconds_since(run_start);

    // Tearing down a large network is neither building nor running it.
    state.PauseTiming();
    events = simulator->events_processed();
    system.reset();
    network.reset();
    simulator.reset();
    state.ResumeTiming();
  }
  state.counters["gpus"] = request.comm.ranks();
  state.counters["channels"] = result.channels;
  state.counters["build_s"] = build_s;
  state.counters["run_s"] = run_s;
  state.counters["busbw_GBps"] = result.busbw_GBps;
  state.counters["events"] = static_cast<double>(events);
  state.counters["rss_before_MiB"] = rss_before;
  state.counters["peak_rss_MiB"] = proc_status_mib("VmHWM:");
}

// One call of `op` of `size` (`algorithm` and the Simple protocol, or with neither what NCCL's
// tuner picks; NCCL's channel count; pipelined execution) over every GPU of state.range(0)
// dgx-h100 nodes, or over one GPU of each with `one_gpu_per_node`; with `sharp`, on switches that
// reduce.
void run_call(benchmark::State& state,
              models::CollectiveOp op,
              std::optional<models::Algorithm> algorithm,
              sim::Bytes size,
              bool one_gpu_per_node = false,
              bool sharp = false) {
  const auto nodes = static_cast<int>(state.range(0));
  models::SystemSpec spec;
  spec.node = models::node_preset("dgx-h100");
  spec.nodes = nodes;
  // The fabric a user gets from the preset: grown by the QM9700's radix, three tiers past 256.
  spec.fabric = models::fabric_preset("superpod-h100");
  if (sharp) {
    spec.fabric.sharp = models::SharpSpec{};
  }
  const int gpus_per_node = one_gpu_per_node ? 1 : static_cast<int>(spec.node.gpus.size());

  models::CollectiveRequest request;
  request.op = op;
  request.size = size;
  request.comm = {nodes, gpus_per_node};
  request.algorithm = algorithm;
  if (algorithm) {
    request.protocol = models::Protocol::kSimple;
  }
  request.execution = models::Execution::kPipelined;  // channels unset: NCCL's default count
  run_on(state, spec, request);
}

// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_RingAllReduce(benchmark::State& state) {
  run_call(state, models::CollectiveOp::kAllReduce, models::Algorithm::kRing, sim::gib(8));
}

BENCHMARK(BM_RingAllReduce)
    ->ArgName("nodes")
    ->Arg(16)
    ->Arg(128)
    ->Arg(1024)
    ->Arg(4096)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// NCCL's double binary tree across the nodes, a chain inside each.
// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_TreeAllReduce(benchmark::State& state) {
  run_call(state, models::CollectiveOp::kAllReduce, models::Algorithm::kTree, sim::gib(1));
}

// NVLS inside each node, a double binary tree of 8 heads' NICs across them (NCCL's 16 channels
// and 8 heads).
// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_NvlsTreeAllReduce(benchmark::State& state) {
  run_call(state, models::CollectiveOp::kAllReduce, models::Algorithm::kNvlsTree, sim::gib(1));
}

// PAT runs with one GPU per node: log2(nodes) peers per rank.
// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_PatAllGather(benchmark::State& state) {
  run_call(state, models::CollectiveOp::kAllGather, models::Algorithm::kPat, sim::gib(1), true);
}

// CollNet Direct on SHARP: 8 heads' stars inside the nodes, a reduction tree per rail across them.
// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_CollNetDirectAllReduce(benchmark::State& state) {
  run_call(state, models::CollectiveOp::kAllReduce, models::Algorithm::kCollNetDirect, sim::gib(1),
           false, true);
}

// 16, 128 and 1,024 nodes, one iteration each.
void up_to_1024_nodes(benchmark::internal::Benchmark* registered) {
  registered->ArgName("nodes")->Arg(16)->Arg(128)->Arg(1024)->Iterations(1)->Unit(
      benchmark::kSecond);
}

// What NCCL's tuner runs for 8 GiB (NVLS Tree for AllReduce, ring for the others) on the preset
// grown to 1,024-16,384 nodes: 8,192 to 131,072 GPUs, the last in two planes (issue 23's scale;
// docs/performance.md).
// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_AutoAllReduce(benchmark::State& state) {
  run_call(state, models::CollectiveOp::kAllReduce, std::nullopt, sim::gib(8));
}

// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_AutoAllGather(benchmark::State& state) {
  run_call(state, models::CollectiveOp::kAllGather, std::nullopt, sim::gib(8));
}

// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_AutoReduceScatter(benchmark::State& state) {
  run_call(state, models::CollectiveOp::kReduceScatter, std::nullopt, sim::gib(8));
}

// Every GPU sends 1/n of 1 GiB to every other: n(n-1) messages, each on its p2p channels (issue
// 21's scale: 1,024 GPUs, about a million messages).
// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_AllToAll(benchmark::State& state) {
  run_call(state, models::CollectiveOp::kAllToAll, std::nullopt, sim::gib(1));
}

void large_clusters(benchmark::internal::Benchmark* registered) {
  registered->ArgName("nodes")
      ->Arg(1024)
      ->Arg(2048)
      ->Arg(4096)
      ->Arg(8192)
      ->Arg(16384)
      ->Iterations(1)
      ->Unit(benchmark::kSecond);
}

BENCHMARK(BM_AutoAllReduce)->Apply(large_clusters);
BENCHMARK(BM_AutoAllGather)->Apply(large_clusters);
BENCHMARK(BM_AutoReduceScatter)->Apply(large_clusters);
BENCHMARK(BM_TreeAllReduce)->Apply(up_to_1024_nodes);
BENCHMARK(BM_NvlsTreeAllReduce)->Apply(up_to_1024_nodes);
BENCHMARK(BM_PatAllGather)->Apply(up_to_1024_nodes);
BENCHMARK(BM_CollNetDirectAllReduce)->Apply(up_to_1024_nodes);

// The 8 GiB AllReduce NCCL's tuner picks on state.range(0) GB200 NVL72 racks (72 GPUs a node,
// NCCL's MNNVL view), with the execution railsim picks: issue 22's 20 racks.
// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_Nvl72AllReduce(benchmark::State& state) {
  models::SystemSpec spec;
  spec.node = models::node_preset("gb200-nvl72");
  spec.nodes = static_cast<int>(state.range(0));
  models::CollectiveRequest request;
  request.op = models::CollectiveOp::kAllReduce;
  request.size = sim::gib(8);
  request.comm = {spec.nodes, static_cast<int>(spec.node.gpus.size())};
  run_on(state, spec, request);
}

BENCHMARK(BM_Nvl72AllReduce)
    ->ArgName("racks")
    ->Arg(1)
    ->Arg(20)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_AllToAll)
    ->ArgName("nodes")
    ->Arg(16)
    ->Arg(32)
    ->Arg(64)
    ->Arg(128)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace railsim::bench

BENCHMARK_MAIN();
