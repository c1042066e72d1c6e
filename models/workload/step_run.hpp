// File: models/workload/step_run.hpp
// Runs one training step (models/workload/step_workload.hpp) on a System: compute phases as
// timers, collectives as concurrent calls on the network, each released the moment its
// dependencies are met; the step's time, each rank's idle time and the critical path.
//
// Cost: O(phases x ranks) bookkeeping plus the collectives' own (once per distinct call where
// calls are reused, see StepOptions); O(links) at the start and end of each simulated call, to
// find the link it loaded most.
#pragma once

#include "models/collective/collective_calibration.hpp"
#include "models/collective/collective_run.hpp"
#include "models/system/system.hpp"
#include "models/workload/step_workload.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"
#include "sim/time.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace railsim::models {

// A GPU whose compute runs slower (thermal throttling, a bad HBM stack): each compute phase on it
// takes `compute_scale` times as long.
struct Straggler {
  int node = 0;  // system node
  int gpu = 0;   // GPU index in the node
  double compute_scale = 1.0;
};

struct StepOptions {
  CollectiveCalibration calibration;  // a profile's software costs (calibrate/fit/profile.hpp)
  std::vector<Straggler> stragglers;
  // When every collective runs on one stream (one communicator of one group), calls never
  // overlap, and on a network whose only other traffic is steady, a call identical to an
  // earlier one takes exactly its time: simulate each distinct call once and replay the rest
  // (a DP step's hundreds of equal buckets). The caller clears it when link rates change
  // during the step (timed faults), which breaks the premise.
  bool reuse_identical_calls = true;
  // Called as each phase instance ends (a compute phase on one rank, a collective on one group),
  // from the thread that runs the step: progress for a caller that shows it.
  std::function<void()> instance_finished;
};

// How many phase instances a run of `workload` ends: one per rank a compute phase runs on, one
// per group of a collective's or send's communicator.
std::size_t phase_instance_count(const StepWorkload& workload);

// One phase on one group (a collective) or one rank (compute), as it ran.
struct PhaseRun {
  int phase = 0;
  int instance = 0;      // the group of its communicator, or the rank for compute
  sim::SimTime ready{};  // when its last dependency finished
  sim::SimTime start{};
  sim::SimTime end{};
  std::optional<CollectiveResult> collective;
  // The link this collective loaded most while it ran: bytes carried / (capacity x time).
  std::optional<sim::LinkId> busiest_link;
  double busiest_utilisation = 0.0;
};

struct StepResult {
  sim::Duration step_time{};
  std::vector<sim::Duration> compute_time;  // per rank: time its GPU computed
  std::vector<PhaseRun> runs;               // every phase instance, in the order they ended
  std::vector<double> link_bytes;  // per link: bytes it carried while the step's collectives ran
  // The chain of runs that set the step time, first to last (indices into runs): each one's
  // start waited on the one before it.
  std::vector<int> critical_path;

  // The fraction of the step a rank's GPU did not compute, averaged over ranks: what
  // communication (and waiting for slower ranks) cost.
  double comm_wait_fraction() const;

  sim::Duration idle_time(int rank) const {
    return step_time - compute_time.at(static_cast<std::size_t>(rank));
  }
};

// Runs the step from the simulator's current time until its last phase ends (other traffic on
// the network keeps flowing). The workload must pass validate(). Throws sim::InputError for a
// collective the system cannot run, naming the phase.
StepResult run_step(const System& system,
                    sim::FlowNetwork& network,
                    sim::Simulator& simulator,
                    const StepWorkload& workload,
                    const StepOptions& options);

// Several jobs on disjoint nodes of one system at once, from the simulator's current time until
// the last phase of the last job ends: each job's own result, its collectives sharing the fabric
// with the others' (a spine uplink, a leaf). Calls are never replayed here, since those of
// different jobs overlap. Throws sim::InputError when two jobs share a node.
std::vector<StepResult> run_steps(const System& system,
                                  sim::FlowNetwork& network,
                                  sim::Simulator& simulator,
                                  const std::vector<StepWorkload>& jobs,
                                  const StepOptions& options);

}  // namespace railsim::models
