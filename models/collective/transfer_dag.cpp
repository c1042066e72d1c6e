// File: models/collective/transfer_dag.cpp
// Running a DAG of tasks as flows: release on drain (the connection) and on delivery plus hold
// (the data).
#include "models/collective/transfer_dag.hpp"

#include "sim/assert.hpp"

#include <algorithm>
#include <span>

namespace railsim::models {

struct DagExecutor::Impl {
  sim::FlowNetwork& net;
  sim::Simulator& sim;
  TransferDag dag;
  CollectiveTrace* trace;
  std::function<void(sim::SimTime)> done;
  bool started = false;
  bool finished = false;
  sim::SimTime last_delivery;

  std::vector<std::uint32_t> waiting;  // conditions still unmet: data, connection
  // Per task, what its delivery still waits for: its flows, and for one that streams, each of
  // its dependencies' last byte.
  std::vector<std::uint32_t> arrivals_left;
  std::vector<sim::Duration> latency;  // per task: its longest path's latency
  // Dependants by data, in compressed rows: those of task t are
  // dependants[first_dependant[t] .. first_dependant[t + 1]).
  std::vector<std::uint32_t> first_dependant;
  std::vector<std::uint32_t> dependants;
  std::vector<std::int64_t> next_on_connection;
  std::vector<std::uint32_t> flows_draining;
  std::vector<sim::SimTime> first_start;  // traced runs only: per task, its earliest flow start
  std::size_t tasks_left = 0;

  Impl(sim::FlowNetwork& n, sim::Simulator& s, TransferDag d, CollectiveTrace* t)
      : net(n), sim(s), dag(std::move(d)), trace(t) {
    RAILSIM_ASSERT(!trace || dag.senders.size() == dag.tasks.size(),
                   "a traced DAG names the sender of every task");
  }

  void index() {
    const std::size_t count = dag.tasks.size();
    waiting.assign(count, 0);
    arrivals_left.assign(count, 0);
    latency.assign(count, sim::Duration{});
    std::vector<sim::Duration> latency_of(dag.paths.size());
    for (std::size_t p = 0; p < dag.paths.size(); ++p) {
      latency_of[p] = path_latency(net, dag.paths[p]);
    }
    next_on_connection.assign(count, -1);
    flows_draining.assign(count, 0);
    if (trace) {
      first_start.assign(count, sim::kTimeNever);
    }
    first_dependant.assign(count + 1, 0);
    for (const DagTask& task : dag.tasks) {
      for (const std::uint32_t d : task.depends_on) {
        ++first_dependant[d + 1];
      }
    }
    for (std::size_t t = 0; t < count; ++t) {
      first_dependant[t + 1] += first_dependant[t];
    }
    dependants.assign(first_dependant[count], 0);
    std::vector<std::uint32_t> filled(first_dependant.begin(), first_dependant.end() - 1);
    for (std::size_t t = 0; t < count; ++t) {
      const DagTask& task = dag.tasks[t];
      RAILSIM_ASSERT(!task.flows.empty(), "a task moves at least one flow");
      for (const DagFlow& f : task.flows) {
        latency[t] = std::max(latency[t], latency_of[f.path]);
      }
      arrivals_left[t] = static_cast<std::uint32_t>(task.flows.size());
      for (const std::uint32_t d : task.depends_on) {
        RAILSIM_ASSERT(d < t, "a task depends only on earlier tasks");
        dependants[filled[d]++] = static_cast<std::uint32_t>(t);
        ++waiting[t];
        if (task.streams) {
          ++arrivals_left[t];
        }
      }
      if (task.after) {
        RAILSIM_ASSERT(*task.after < t, "a connection's tasks are listed in order");
        next_on_connection[*task.after] = static_cast<std::int64_t>(t);
        ++waiting[t];
      }
    }
  }

  void run() {
    index();
    tasks_left = dag.tasks.size();
    if (tasks_left == 0) {
      finish();
      return;
    }
    for (std::size_t t = 0; t < dag.tasks.size(); ++t) {
      if (waiting[t] == 0) {
        send(t);
      }
    }
  }

  void release(std::int64_t t) {
    if (t >= 0 && --waiting[static_cast<std::size_t>(t)] == 0) {
      send(static_cast<std::size_t>(t));
    }
  }

  void send(std::size_t t) {
    const DagTask& task = dag.tasks[t];
    flows_draining[t] = static_cast<std::uint32_t>(task.flows.size());
    // Dependants that stream may start once the first byte has crossed and been held.
    for (std::uint32_t i = first_dependant[t]; i < first_dependant[t + 1]; ++i) {
      const std::uint32_t d = dependants[i];
      if (dag.tasks[d].streams) {
        sim.schedule_after(latency[t] + task.hold, [this, d] { release(d); });
      }
    }
    std::optional<sim::GroupId> group;
    if (task.grouped) {
      group = net.create_group(1.0, task.flow_cap);
    }
    for (const DagFlow& f : task.flows) {
      sim::FlowSpec flow;
      const std::span<const sim::LinkId> path = dag.paths[f.path];
      flow.path.assign(path.begin(), path.end());
      flow.size = f.bytes;
      flow.group = group;
      if (!group) {
        flow.weight = f.weight;
        flow.rate_cap = sim::Bandwidth{task.flow_cap.bytes_per_s * f.weight};
      }
      flow.on_drained = [this, t](const sim::FlowRecord& record) {
        if (trace) {
          first_start[t] = std::min(first_start[t], record.start);
        }
        if (--flows_draining[t] == 0) {
          if (trace) {
            traced(t, record.drained);
          }
          const std::int64_t next = next_on_connection[t];
          const sim::Duration post = dag.tasks[t].post;
          if (next >= 0 && post > sim::Duration{}) {
            sim.schedule_after(post, [this, next] { release(next); });
          } else {
            release(next);
          }
        }
      };
      flow.on_complete = [this, t](const sim::FlowRecord& /*record*/) { landed(t); };
      net.start_flow(std::move(flow));
    }
  }

  // Flows drain in time order, so the last one's drain is the task's.
  void traced(std::size_t t, sim::SimTime drained) {
    const TraceSender& s = dag.senders[t];
    trace->send(s.rank, s.channel, s.peer, dag.names.at(s.what), first_start[t], drained, s.bytes);
  }

  // One of what task t's delivery waits for has come: a flow, or a streamed dependency's last
  // byte.
  void landed(std::size_t t) {
    if (--arrivals_left[t] == 0) {
      arrived(t);
    }
  }

  // Task t is delivered now: after its hold, dependants that wait for the whole of it may start,
  // and those that stream it have its last byte once it has crossed their own path.
  void arrived(std::size_t t) {
    const sim::Duration hold = dag.tasks[t].hold;
    last_delivery = std::max(last_delivery, sim.now() + hold);
    bool waits = false;
    for (std::uint32_t i = first_dependant[t]; i < first_dependant[t + 1]; ++i) {
      const std::uint32_t d = dependants[i];
      if (dag.tasks[d].streams) {
        sim.schedule_after(hold + latency[d], [this, d] { landed(d); });
      } else {
        waits = true;
      }
    }
    if (waits) {
      sim.schedule_after(hold, [this, t] {
        for (std::uint32_t i = first_dependant[t]; i < first_dependant[t + 1]; ++i) {
          if (!dag.tasks[dependants[i]].streams) {
            release(dependants[i]);
          }
        }
      });
    }
    if (--tasks_left == 0) {
      finish();
    }
  }

  void finish() {
    finished = true;
    if (done) {
      done(last_delivery);
    }
  }
};

DagExecutor::DagExecutor(sim::FlowNetwork& network,
                         sim::Simulator& simulator,
                         TransferDag dag,
                         CollectiveTrace* trace)
    : impl_(std::make_unique<Impl>(network, simulator, std::move(dag), trace)) {}

DagExecutor::~DagExecutor() = default;

void DagExecutor::start(sim::Duration delay, std::function<void(sim::SimTime)> done) {
  Impl& m = *impl_;
  RAILSIM_ASSERT(!m.started, "a DAG runs once");
  m.started = true;
  m.done = std::move(done);
  m.last_delivery = m.sim.now() + delay;
  m.sim.schedule_after(delay, [&m] { m.run(); });
}

bool DagExecutor::finished() const { return impl_->finished; }

}  // namespace railsim::models
