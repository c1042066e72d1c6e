// File: models/workload/step_run.cpp
// The step as an event-driven list schedule: each phase instance counts the dependencies it still
// waits for, rank by rank, and starts the moment the count reaches zero.
#include "models/workload/step_run.hpp"

#include "models/workload/send_call.hpp"
#include "sim/assert.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <utility>

namespace railsim::models {
namespace {

using sim::at;

// What one collective call or send did, to report it and, where calls are reused, to replay it.
struct CallRecord {
  std::optional<CollectiveResult> result;  // none for a send
  std::optional<sim::LinkId> busiest_link;
  double busiest_utilisation = 0.0;
  std::vector<std::pair<std::uint32_t, double>> link_bytes;  // link index, bytes carried
};

// The one stream every collective of the workload runs on, when there is one: a single
// communicator of a single group, and no sends. Calls on it never overlap each other.
bool one_collective_stream(const StepWorkload& workload) {
  int communicator = -1;
  for (const Phase& phase : workload.phases) {
    if (std::holds_alternative<SendTask>(phase.task)) {
      return false;
    }
    if (const auto* task = std::get_if<CollectiveTask>(&phase.task)) {
      if ((communicator >= 0 && task->communicator != communicator) ||
          workload.communicators[at(task->communicator)].groups.size() != 1) {
        return false;
      }
      communicator = task->communicator;
    }
  }
  return true;
}

// A phase on one group or rank, waiting for `pending` rank-level dependencies.
struct Instance {
  int phase = 0;
  int index = 0;
  std::vector<int> ranks;
  int pending = 0;
  std::vector<int> successors;  // per rank it runs on, each instance waiting for it there
  int binding_run = -1;         // the run whose end released it
  sim::SimTime ready{};
  sim::Duration compute{};  // a compute phase's time on its rank, before a straggler's scale
};

class StepRunner {
 public:
  StepRunner(const System& system,
             sim::FlowNetwork& network,
             sim::Simulator& simulator,
             const StepWorkload& workload,
             const StepOptions& options)
      : system_(system),
        network_(network),
        simulator_(simulator),
        workload_(workload),
        options_(options) {
    reuse_ = options.reuse_identical_calls && one_collective_stream(workload);
    make_instances();
    link_instances();
    compute_scale_.assign(at(workload.ranks()), 1.0);
    for (const Straggler& s : options.stragglers) {
      const int rank = job_rank(workload, s.node, s.gpu);  // once per straggler
      if (rank >= 0) {
        compute_scale_[at(rank)] *= s.compute_scale;
      }
    }
  }

  // Releases the phases that wait for nothing, at the simulator's current time.
  void start() {
    origin_ = simulator_.now();
    result_.compute_time.assign(at(workload_.ranks()), sim::Duration{});
    result_.link_bytes.assign(network_.link_count(), 0.0);
    for (std::size_t i = 0; i < instances_.size(); ++i) {
      if (instances_[i].pending == 0) {
        instances_[i].ready = origin_;
        release(static_cast<int>(i));
      }
    }
  }

  bool finished() const { return result_.runs.size() == instances_.size(); }

  // Once finished: the step time and the critical path, back from the run that ended last.
  StepResult result() {
    sim::SimTime end = origin_;
    int last = -1;
    for (std::size_t r = 0; r < result_.runs.size(); ++r) {
      if (result_.runs[r].end >= end) {
        end = result_.runs[r].end;
        last = static_cast<int>(r);
      }
    }
    result_.step_time = end - origin_;
    for (int r = last; r >= 0; r = binding_of_run_[at(r)]) {
      result_.critical_path.push_back(r);
    }
    std::reverse(result_.critical_path.begin(), result_.critical_path.end());
    return std::move(result_);
  }

 private:
  // One instance per rank a compute phase runs on, one per group of a collective's or send's
  // communicator.
  void make_instances() {
    const int ranks = workload_.ranks();
    const std::vector<int> node_index = job_node_index(workload_);
    instance_of_.assign(workload_.phases.size(), std::vector<int>(at(ranks), -1));
    instances_.reserve(phase_instance_count(workload_));
    for (std::size_t p = 0; p < workload_.phases.size(); ++p) {
      const Phase& phase = workload_.phases[p];
      const int comm = communicator_of(phase);
      if (comm < 0) {
        std::vector<int> on = phase.ranks;
        if (on.empty()) {
          on.resize(at(ranks));
          std::iota(on.begin(), on.end(), 0);
        }
        const auto& compute = std::get<ComputeTask>(phase.task);
        for (std::size_t i = 0; i < on.size(); ++i) {
          add_instance(static_cast<int>(p), on[i], {on[i]});
          instances_.back().compute =
              compute.per_rank.empty() ? compute.duration : compute.per_rank[i];
        }
        continue;
      }
      const StepCommunicator& groups = workload_.communicators[at(comm)];
      for (std::size_t g = 0; g < groups.groups.size(); ++g) {
        std::vector<int> members = group_job_ranks(workload_, node_index, groups.groups[g]);
        RAILSIM_ASSERT(std::find(members.begin(), members.end(), -1) == members.end(),
                       "validate() keeps groups inside the job");
        add_instance(static_cast<int>(p), static_cast<int>(g), std::move(members));
      }
    }
    RAILSIM_ASSERT(instances_.size() == phase_instance_count(workload_),
                   "phase_instance_count counts what make_instances makes");
  }

  void add_instance(int phase, int index, std::vector<int> ranks) {
    const int id = static_cast<int>(instances_.size());
    for (const int r : ranks) {
      instance_of_[at(phase)][at(r)] = id;
    }
    Instance instance;
    instance.phase = phase;
    instance.index = index;
    instance.ranks = std::move(ranks);
    instances_.push_back(std::move(instance));
  }

  // On each rank, a phase waits for those of its dependencies that run there and for the phase
  // before it on its stream there: the rank's compute stream, or its communicator's.
  void link_instances() {
    const int ranks = workload_.ranks();
    // [stream][rank]: the last phase on the stream that ran there; stream 0 is compute, 1 + c
    // communicator c.
    std::vector<std::vector<int>> last(workload_.communicators.size() + 1,
                                       std::vector<int>(at(ranks), -1));
    std::vector<int> preds;
    for (Instance& instance : instances_) {
      const Phase& phase = workload_.phases[at(instance.phase)];
      std::vector<int>& stream_last = last[at(communicator_of(phase) + 1)];
      for (const int r : instance.ranks) {
        preds.clear();
        for (const int q : phase.after) {
          if (instance_of_[at(q)][at(r)] >= 0) {
            preds.push_back(q);
          }
        }
        if (stream_last[at(r)] >= 0) {
          preds.push_back(stream_last[at(r)]);
        }
        std::sort(preds.begin(), preds.end());
        preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
        const int id = instance_of_[at(instance.phase)][at(r)];
        for (const int q : preds) {
          instances_[at(instance_of_[at(q)][at(r)])].successors.push_back(id);
        }
        instance.pending += static_cast<int>(preds.size());
        stream_last[at(r)] = instance.phase;
      }
    }
  }

  void release(int id) {
    const Instance& instance = instances_[at(id)];
    const Phase& phase = workload_.phases[at(instance.phase)];
    const sim::SimTime start = simulator_.now();
    if (std::holds_alternative<ComputeTask>(phase.task)) {
      const double scale = compute_scale_[at(instance.ranks.front())];
      const sim::Duration duration{
          static_cast<sim::Duration::rep>(static_cast<double>(instance.compute.count()) * scale)};
      simulator_.schedule_after(duration, [this, id, start] { finish(id, start, nullptr, 0); });
      return;
    }
    if (const auto* send = std::get_if<SendTask>(&phase.task)) {
      const Communicator& pair =
          workload_.communicators[at(send->communicator)].groups[at(instance.index)];
      try {
        start_send(system_, network_, pair, send->size, [this, id, start, carried = carried_now()] {
          finish(id, start, &keep(record_of(std::nullopt, start, carried)), 1);
        });
      } catch (const sim::InputError& e) {
        throw sim::InputError(fmt::format("phase {}: {}", phase.name, e.what()));
      }
      return;
    }
    const auto& task = std::get<CollectiveTask>(phase.task);
    CollectiveRequest request = task.request;
    request.comm = workload_.communicators[at(task.communicator)].groups[at(instance.index)];
    request.calibration = options_.calibration;
    const int calls = task.calls;
    const std::string key = reuse_ ? call_key(request) : std::string{};
    if (const auto found = reused_.find(key); reuse_ && found != reused_.end()) {
      simulator_.schedule_after(
          found->second->result->time * calls,
          [this, id, start, calls, call = found->second] { finish(id, start, call, calls); });
      return;
    }
    try {
      calls_[id] = start_collective(
          system_, network_, simulator_, request,
          [this, id, start, key, calls, carried = carried_now()](const CollectiveResult& result) {
            // Let the call go once the event completing it is over: a step holds hundreds.
            simulator_.schedule_after(sim::Duration{}, [this, id] { calls_.erase(id); });
            // An executor may report its end ahead of time (the last hop's latency added, not
            // waited for): what waits for the call starts at that end, not before. The calls
            // after the first replay its time.
            at_or_now(start + result.time, [this, id, start, key, calls, result, carried] {
              const CallRecord* kept = &keep(record_of(result, start, carried));
              if (reuse_) {
                reused_.emplace(key, kept);
              }
              at_or_now(start + result.time * calls,
                        [this, id, start, kept, calls] { finish(id, start, kept, calls); });
            });
          });
    } catch (const sim::InputError& e) {
      throw sim::InputError(fmt::format("phase {}: {}", phase.name, e.what()));
    }
  }

  void at_or_now(sim::SimTime time, std::function<void()> action) {
    if (time > simulator_.now()) {
      simulator_.schedule_at(time, std::move(action));
    } else {
      action();
    }
  }

  std::vector<double> carried_now() const {
    std::vector<double> carried(network_.link_count());
    for (std::size_t l = 0; l < carried.size(); ++l) {
      carried[l] = network_.counters(sim::LinkId{static_cast<std::uint32_t>(l)}).bytes_carried;
    }
    return carried;
  }

  const CallRecord& keep(CallRecord record) { return records_.emplace_back(std::move(record)); }

  // Everything that tells one call from another on the job's one communicator.
  static std::string call_key(const CollectiveRequest& r) {
    const auto opt = [](const auto& v) { return v ? static_cast<int>(*v) : -1; };
    return fmt::format("{} {} {} {} {} {} {} {} {} {} {}", static_cast<int>(r.op), r.size.count,
                       algorithm_set_text(r.algorithm), opt(r.protocol), opt(r.channels),
                       opt(r.channels_per_net_peer), r.cross_nic, r.pxn, r.qps_per_connection,
                       opt(r.execution), fmt::ptr(r.peer_bytes.get()));
  }

  // The call's result (a send has none), the link it loaded most (bytes carried / (capacity x
  // time)) and what it carried on each link, from the links' counters now and at its start.
  CallRecord record_of(const std::optional<CollectiveResult>& result,
                       sim::SimTime start,
                       const std::vector<double>& carried_at_start) const {
    CallRecord record;
    record.result = result;
    const double seconds = sim::to_seconds(simulator_.now() - start);
    for (std::size_t l = 0; l < carried_at_start.size(); ++l) {
      const sim::LinkId link{static_cast<std::uint32_t>(l)};
      const double bytes = network_.counters(link).bytes_carried - carried_at_start[l];
      const double capacity = network_.link(link).capacity.bytes_per_s;
      if (bytes <= 0.0) {
        continue;
      }
      record.link_bytes.emplace_back(link.index, bytes);
      const double utilisation =
          seconds > 0.0 && capacity > 0.0 ? bytes / (capacity * seconds) : 0.0;
      if (utilisation > record.busiest_utilisation) {
        record.busiest_utilisation = utilisation;
        record.busiest_link = link;
      }
    }
    return record;
  }

  // Records the run (a collective's or send's from `call`, `calls` times its bytes; compute
  // without), then releases what waited for it on each of its ranks.
  void finish(int id, sim::SimTime start, const CallRecord* call, int calls) {
    const Instance& instance = instances_[at(id)];
    PhaseRun run;
    run.phase = instance.phase;
    run.instance = instance.index;
    run.ready = instance.ready;
    run.start = start;
    run.end = simulator_.now();
    if (call == nullptr) {
      result_.compute_time[at(instance.ranks.front())] += run.end - run.start;
    } else {
      run.collective = call->result;
      run.busiest_link = call->busiest_link;
      run.busiest_utilisation = call->busiest_utilisation;
      for (const auto& [link, bytes] : call->link_bytes) {
        result_.link_bytes[link] += bytes * calls;
      }
    }
    const int run_index = static_cast<int>(result_.runs.size());
    result_.runs.push_back(run);
    if (options_.instance_finished) {
      options_.instance_finished();
    }
    binding_of_run_.push_back(instance.binding_run);
    for (const int next : instance.successors) {
      Instance& waiting = instances_[at(next)];
      if (--waiting.pending == 0) {
        waiting.binding_run = run_index;
        waiting.ready = run.end;
        release(next);
      }
    }
  }

  const System& system_;
  sim::FlowNetwork& network_;
  sim::Simulator& simulator_;
  const StepWorkload& workload_;
  const StepOptions& options_;
  std::vector<std::vector<int>> instance_of_;  // [phase][rank]
  std::vector<Instance> instances_;
  std::vector<double> compute_scale_;
  std::map<int, std::unique_ptr<CollectiveCall>> calls_;  // those in flight, by instance
  std::vector<int> binding_of_run_;
  bool reuse_ = false;
  std::deque<CallRecord> records_;  // stable: runs waiting to finish hold pointers into it
  std::map<std::string, const CallRecord*> reused_;
  sim::SimTime origin_{};
  StepResult result_;
};

}  // namespace

double StepResult::comm_wait_fraction() const {
  if (compute_time.empty() || step_time <= sim::Duration{}) {
    return 0.0;
  }
  double idle = 0.0;
  for (std::size_t r = 0; r < compute_time.size(); ++r) {
    idle += sim::to_seconds(idle_time(static_cast<int>(r)));
  }
  return idle / static_cast<double>(compute_time.size()) / sim::to_seconds(step_time);
}

std::size_t phase_instance_count(const StepWorkload& workload) {
  std::size_t count = 0;
  for (const Phase& phase : workload.phases) {
    const int comm = communicator_of(phase);
    if (comm >= 0) {
      count += workload.communicators[at(comm)].groups.size();
    } else {
      count += phase.ranks.empty() ? at(workload.ranks()) : phase.ranks.size();
    }
  }
  return count;
}

std::vector<StepResult> run_steps(const System& system,
                                  sim::FlowNetwork& network,
                                  sim::Simulator& simulator,
                                  const std::vector<StepWorkload>& jobs,
                                  const StepOptions& options) {
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    for (std::size_t k = 0; k < j; ++k) {
      for (const int node : jobs[j].nodes) {
        if (std::find(jobs[k].nodes.begin(), jobs[k].nodes.end(), node) != jobs[k].nodes.end()) {
          throw sim::InputError(fmt::format(
              "jobs {} and {} both run on node {}: jobs need nodes of their own", k, j, node));
        }
      }
    }
  }
  StepOptions shared = options;
  // Calls of different jobs overlap: a replayed time would miss what they do to each other.
  shared.reuse_identical_calls = options.reuse_identical_calls && jobs.size() == 1;
  std::vector<std::unique_ptr<StepRunner>> runners;
  runners.reserve(jobs.size());
  for (const StepWorkload& job : jobs) {
    runners.push_back(std::make_unique<StepRunner>(system, network, simulator, job, shared));
  }
  for (const auto& runner : runners) {
    runner->start();
  }
  const auto all_finished = [&runners] {
    return std::all_of(runners.begin(), runners.end(),
                       [](const auto& runner) { return runner->finished(); });
  };
  while (!all_finished()) {
    const bool stepped = simulator.step();
    RAILSIM_ASSERT(stepped, "a step in progress always has an event pending");
    if (!stepped) {
      break;
    }
  }
  std::vector<StepResult> results;
  results.reserve(runners.size());
  for (const auto& runner : runners) {
    results.push_back(runner->result());
  }
  return results;
}

StepResult run_step(const System& system,
                    sim::FlowNetwork& network,
                    sim::Simulator& simulator,
                    const StepWorkload& workload,
                    const StepOptions& options) {
  return std::move(run_steps(system, network, simulator, {workload}, options).front());
}

}  // namespace railsim::models
