// File: bench/diagnosis_bench.cpp
// railsim diagnose's fault sweep on DGX H100 clusters of 4, 8 and 16 nodes, on one thread:
// the measurements are ib_write_bw at 8 MiB and ib_write_lat at 2 B on every rail between ring
// neighbours and a 1 GiB all_reduce_perf on 2 x 8 GPUs of the same pairs, made by the model with
// one cable at half rate (node 1's first compute NIC). Reports the explanations evaluated; the
// cost should grow with nodes x NICs (the candidates) times the few measurements each touches.
// And the nccl-tests log of ten DGX H100 at 8 GPUs a node that target is set on:
// all_reduce, all_gather and reduce_scatter at 32 MiB-16 GiB (factor 2, 30 rows), as the design
// predicts them (Arg 0) and with node 0's first compute NIC's port at 75% (Arg 1).
// docs/performance.md has the figures.
#include "calibrate/diagnose/fault_diagnosis.hpp"
#include "calibrate/fit/faulted_design.hpp"
#include "calibrate/fit/measurements.hpp"
#include "models/scenario/system_file.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace railsim::bench {
namespace {

calibrate::fit::CalibratedModel cluster(int nodes) {
  calibrate::fit::CalibratedModel model{models::scenario::system_from_argument("dgx-h100").system,
                                        {}};
  model.system.nodes = nodes;
  return model;
}

calibrate::fit::MeasurementSet measurements(const calibrate::fit::CalibratedModel& design) {
  const calibrate::fit::FaultedDesign truth =
      calibrate::fit::with_faults(design, {{models::FaultKind::kNicPort, 1, 0, 0.5}});
  const auto rails = static_cast<int>(models::compute_nic_indices(design.system.node).size());
  calibrate::fit::MeasurementSet set;
  const auto add = [&](calibrate::fit::Measurement m) {
    m.measured = calibrate::fit::predict(truth.model, m, truth.prepare);
    set.rows.push_back(std::move(m));
  };
  for (int a = 0; a < design.system.nodes; ++a) {
    const int b = (a + 1) % design.system.nodes;
    for (int rail = 0; rail < rails; ++rail) {
      calibrate::fit::Measurement bw;
      bw.kind = calibrate::fit::MeasurementKind::kRdmaBandwidth;
      bw.size_bytes = std::int64_t{8} << 20;
      bw.iterations = 5000;
      bw.node_ids = {a, b};
      bw.nic = rail;
      add(bw);
      calibrate::fit::Measurement lat = bw;
      lat.kind = calibrate::fit::MeasurementKind::kRdmaLatency;
      lat.size_bytes = 2;
      add(lat);
    }
    calibrate::fit::Measurement all_reduce;
    all_reduce.nodes = 2;
    all_reduce.gpus_per_node = 8;
    all_reduce.size_bytes = std::int64_t{1} << 30;
    all_reduce.node_ids = {a, b};
    add(all_reduce);
  }
  return set;
}

// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_Diagnose(benchmark::State& state) {
  const calibrate::fit::CalibratedModel design = cluster(static_cast<int>(state.range(0)));
  const calibrate::fit::MeasurementSet set = measurements(design);
  int evaluated = 0;
  for (auto _ : state) {
    const calibrate::diagnose::Diagnosis d =
        calibrate::diagnose::diagnose(design, set);  // on this thread
    evaluated = d.candidates;
    benchmark::DoNotOptimize(d.ranked.data());
  }
  state.counters["measurements"] = static_cast<double>(set.rows.size());
  state.counters["explanations"] = evaluated;
}

BENCHMARK(BM_Diagnose)->Arg(4)->Arg(8)->Arg(16)->Unit(benchmark::kSecond)->Iterations(1);

calibrate::fit::MeasurementSet ten_by_eight(const calibrate::fit::CalibratedModel& design,
                                            bool faulted) {
  const calibrate::fit::FaultedDesign truth = calibrate::fit::with_faults(
      design, faulted ? std::vector<models::ElementFault>{{models::FaultKind::kNicPort, 0, 0, 0.75}}
                      : std::vector<models::ElementFault>{});
  calibrate::fit::MeasurementSet set;
  for (const models::CollectiveOp op :
       {models::CollectiveOp::kAllReduce, models::CollectiveOp::kAllGather,
        models::CollectiveOp::kReduceScatter}) {
    for (std::int64_t size = std::int64_t{32} << 20; size <= (std::int64_t{16} << 30); size *= 2) {
      calibrate::fit::Measurement m;
      m.op = op;
      m.size_bytes = size;
      calibrate::fit::place_collective(m, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {0, 1, 2, 3, 4, 5, 6, 7});
      m.measured = calibrate::fit::predict(truth.model, m, truth.prepare);
      set.rows.push_back(std::move(m));
    }
  }
  return set;
}

// NOLINTNEXTLINE(readability-identifier-naming): Google Benchmark's BM_ naming.
void BM_DiagnoseTenByEight(benchmark::State& state) {
  const calibrate::fit::CalibratedModel design = cluster(10);
  const calibrate::fit::MeasurementSet set = ten_by_eight(design, state.range(0) != 0);
  calibrate::diagnose::Diagnosis d;
  for (auto _ : state) {
    d = calibrate::diagnose::diagnose(design, set);  // on this thread
    benchmark::DoNotOptimize(d.ranked.data());
  }
  state.counters["explanations"] = d.candidates;
  state.counters["completed"] = d.completed;
  state.counters["model_runs"] = static_cast<double>(d.model_runs);
  state.counters["distinct"] = d.distinct();
}

BENCHMARK(BM_DiagnoseTenByEight)->Arg(0)->Arg(1)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace railsim::bench

BENCHMARK_MAIN();
