// File: tests/models/workload/step_bed.hpp
// What the step tests share: a preset system on its own simulator, and 0 .. n - 1.
#pragma once

#include "models/hardware/node_presets.hpp"
#include "models/workload/step_run.hpp"

#include <memory>
#include <numeric>
#include <vector>

namespace railsim::models {

inline double ms(sim::Duration d) { return sim::to_seconds(d) * 1e3; }

struct Bed {
  sim::Simulator simulator;
  sim::FlowNetwork network{simulator};
  std::unique_ptr<System> system;

  explicit Bed(int nodes) {
    SystemSpec spec;
    spec.node = node_preset("dgx-h100");
    spec.nodes = nodes;
    system = std::make_unique<System>(spec, network);
  }

  StepResult step(const StepWorkload& workload, const StepOptions& options = {}) {
    validate(workload);
    return run_step(*system, network, simulator, workload, options);
  }

  sim::Duration collective(const CollectiveRequest& request) {
    return run_collective(*system, network, simulator, request).time;
  }

  // The slowest link of a path, bytes/s, and the sum of its latencies.
  double slowest(const std::vector<sim::LinkId>& path) const {
    double slowest = network.link(path.front()).capacity.bytes_per_s;
    for (const sim::LinkId link : path) {
      slowest = std::min(slowest, network.link(link).capacity.bytes_per_s);
    }
    return slowest;
  }

  sim::Duration latency(const std::vector<sim::LinkId>& path) const {
    sim::Duration sum{};
    for (const sim::LinkId link : path) {
      sum += network.link(link).latency;
    }
    return sum;
  }
};

inline std::vector<int> iota(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

}  // namespace railsim::models
