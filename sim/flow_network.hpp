// File: sim/flow_network.hpp
// FlowNetwork: directed links and the flows that share them, on a Simulator.
//
// A link has a capacity (bytes/s) and a latency. A flow moves `size` bytes along a path of links;
// while it drains it holds a max-min fair share of every link on its path (weighted, and capped
// by its own rate cap). It starts draining when started, finishes draining when its last byte has
// left, and is delivered one path latency (the sum of its links' latencies) later, when its
// completion callback runs. Its rate changes whenever flows start or finish around it, and its
// bytes are integrated piecewise between those changes.
//
// Flow groups: members of a group share one rate variable, because they are stages of one
// pipeline that moves at the pace of its slowest stage. The variable consumes its rate on every
// link of every member (twice on a link that two members cross); its weight is the group's and
// its cap the smallest of the group's and the members' caps. Members finish independently, each
// when its own bytes are through.
//
// Batching: changes made at one simulated time (flows started or drained, capacities set) are
// solved together, by one event at that time queued after the handlers already due then. Until
// it runs, a flow started at this instant shows rate zero; no time passes in between, so no byte
// is miscounted, and a thousand flows started at once cost one solve instead of a thousand.
//
// Incremental solving: on every change, only the rate variables coupled to it are re-solved. Two
// variables are coupled through a link only while that link is full; a link with spare capacity
// constrains nobody. So the engine re-solves the variables reachable from the change through
// full links, checks whether the new rates fill any other link they cross, widens the set if so,
// and repeats. The result is the exact max-min allocation of the whole network (the tests check
// it against a full solve after every event), at a cost that grows with the coupled set, not
// with the number of flows.
#pragma once

#include "sim/bandwidth.hpp"
#include "sim/bytes.hpp"
#include "sim/event_queue.hpp"
#include "sim/max_min.hpp"
#include "sim/simulator.hpp"
#include "sim/time.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::sim {

struct LinkId {
  std::uint32_t index = 0;

  constexpr auto operator<=>(const LinkId&) const = default;
};

// A flow's handle; it names a flow only while the flow is in the network (until delivered).
struct FlowId {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;

  constexpr bool operator==(const FlowId&) const = default;
};

struct GroupId {
  std::uint32_t index = 0;

  constexpr bool operator==(const GroupId&) const = default;
};

struct LinkSpec {
  Bandwidth capacity;  // bytes/s in this link's direction, > 0
  Duration latency{};  // propagation plus forwarding delay, >= 0
  std::string name;    // for messages and reports
};

// A link as the network holds it: its capacity as last set, its latency, and its name, viewed
// in the network's one store of names (valid while the network lives). Millions of links each
// with a string of its own took a fifth of the memory of the largest clusters' runs.
struct LinkInfo {
  Bandwidth capacity;
  Duration latency{};
  std::string_view name;
};

// What a flow did; handed to its completion callback.
struct FlowRecord {
  FlowId id;
  std::uint64_t tag = 0;  // the caller's label from FlowSpec
  Bytes size;
  SimTime start;    // when it started draining
  SimTime drained;  // when its last byte left the path's links
  SimTime end;      // drained + path latency: when it was delivered
};

using FlowCallback = std::function<void(const FlowRecord&)>;

struct FlowSpec {
  std::vector<LinkId> path;                  // non-empty; a link listed twice is crossed twice
  Bytes size;                                // >= 0
  Bandwidth rate_cap = kUnboundedBandwidth;  // > 0
  double weight = 1.0;                       // > 0; a group member takes its group's weight
  std::optional<GroupId> group;
  FlowCallback on_complete;  // at delivery
  // When the last byte has left the path's links (record.end is the delivery still to come):
  // what a sender that moves one message at a time waits for before the next.
  FlowCallback on_drained;
  std::uint64_t tag = 0;
};

struct LinkCounters {
  double bytes_carried = 0.0;  // integral of the link's load over time, in bytes
  Duration busy_time{};        // time during which at least one flow crossed it
  std::uint32_t active_flows = 0;
  std::uint32_t peak_flows = 0;  // most flows crossing it at once
};

// The whole sharing problem as it stands, one entry per rate variable, with the rates the
// engine holds for them: what tests compare against a full solve. O(total path length).
struct NetworkSnapshot {
  SharingProblem problem;
  std::vector<double> rates;                 // bytes/s, in the order of problem.flows
  std::vector<std::vector<FlowId>> members;  // the flows behind each variable
};

struct SolverStats {
  std::uint64_t solves = 0;            // sub-problems solved
  std::uint64_t variables_solved = 0;  // rate variables in them, summed
};

struct RateChange {
  FlowId id;
  std::uint64_t tag = 0;  // the caller's label from FlowSpec
  SimTime time;
  Bandwidth rate;
};

using RateObserver = std::function<void(const RateChange&)>;

struct LinkLoadChange {
  LinkId link;
  SimTime time;
  Bandwidth load;  // the sum of the rates crossing the link, from `time` on
};

using LinkLoadObserver = std::function<void(const LinkLoadChange&)>;

class FlowNetwork {
 public:
  explicit FlowNetwork(Simulator& simulator) : sim_(simulator) {}

  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  LinkId add_link(LinkSpec spec);

  std::size_t link_count() const { return links_.size(); }

  // The first link named `name`, if any: a scan of every link's name, for input and tests, not
  // for a hot path.
  std::optional<LinkId> find_link(std::string_view name) const;

  LinkInfo link(LinkId id) const {
    const Link& l = checked_link(id);
    return LinkInfo{Bandwidth{l.capacity}, link_latencies_[id.index], link_name(id.index)};
  }

  // Changes a link's capacity from now on (a port retrained at a lower rate, say); the flows
  // crossing it are re-solved at once.
  void set_link_capacity(LinkId id, Bandwidth capacity);

  GroupId create_group(double weight = 1.0, Bandwidth rate_cap = kUnboundedBandwidth);

  // Starts a flow now. A path may cross a link more than once (a copy staged through host
  // memory writes and then reads it) and takes its rate there each time. Throws InputError for
  // an empty path, a dangling link or group id, a negative size, a weight or cap <= 0, or a weight
  // on a group member.
  FlowId start_flow(FlowSpec spec);

  // Room for `more` flows beyond those in the network, so that starting them together moves
  // none: a million flows started at once otherwise copy the table each time it doubles.
  void reserve_flows(std::size_t more);

  // True while `id` names a flow in the network: started and not yet delivered.
  bool contains(FlowId id) const;

  // The flow's current rate (zero once drained, until delivered).
  Bandwidth rate(FlowId id) const;

  // Bytes the flow has moved so far.
  double bytes_sent(FlowId id) const;

  // Flows holding bandwidth now: started and not yet drained.
  std::size_t draining_flow_count() const { return draining_flows_; }

  LinkCounters counters(LinkId id) const;

  // The link's current load: the sum of the rates crossing it.
  Bandwidth load(LinkId id) const;

  NetworkSnapshot snapshot() const;

  // False while changes made at this instant wait for their re-solve (see the class comment).
  bool settled() const { return !sim_.pending(resolve_event_); }

  const SolverStats& solver_stats() const { return stats_; }

  // Called with a flow's new rate whenever it changes, and when it drains (rate zero).
  void set_rate_observer(RateObserver observer) { rate_observer_ = std::move(observer); }

  // Called with a link's new load after each re-solve (which takes in all the changes made at
  // one instant), for each link whose load moved by more than kRateEpsilon of its capacity
  // since it was last reported (zero before the first report): at most one call per link and
  // re-solve, at the time of the change, so the steps are exact. Only the links the change
  // touched are examined; with no observer set nothing is tracked. Set it before flows start:
  // a link already loaded is first reported at its next change. The observer must not change
  // the network.
  void set_link_load_observer(LinkLoadObserver observer);

 private:
  // A link crossed by a rate variable, `count` times (once per member crossing it).
  struct Crossing {
    std::uint32_t link;
    std::uint32_t count;
    std::uint32_t position;  // this variable's index in the link's `crossers`
  };

  struct Crosser {
    std::uint32_t var;
    std::uint32_t crossing;  // index in the variable's `crossings`
  };

  struct Link {
    double capacity = 0.0;  // bytes/s
    double load = 0.0;
    std::vector<Crosser> crossers;
    LinkCounters counters;
    SimTime last_change = kTimeZero;  // when bytes_carried and busy_time were last brought up
    std::uint64_t visited = 0;        // scratch: the pass that coupled all of this link's crossers
    std::uint64_t touched = 0;        // scratch: the pass that met it as a partly coupled link
    std::uint32_t local = 0;          // scratch: index in the sub-problem
  };

  struct Member {
    double target;  // the variable's progress at which this member has drained
    std::uint32_t flow;
  };

  // One rate variable: a single flow, or all members of a group.
  struct Var {
    double weight = 1.0;
    double group_cap = kUnbounded;
    double cap = kUnbounded;
    double rate = 0.0;
    double progress = 0.0;  // bytes moved per member since the variable was created
    SimTime last_update = kTimeZero;
    std::vector<Crossing> crossings;
    std::vector<Member> members;  // a min-heap on target
    EventId drain_event;
    bool is_group = false;
    bool in_use = false;
    std::uint64_t coupled = 0;    // scratch: the pass that coupled this variable
    std::uint64_t rate_pass = 0;  // the pass that last changed its rate
  };

  struct Flow {
    FlowSpec spec;
    double start_progress = 0.0;
    SimTime start;
    SimTime drained;
    Duration latency{};
    std::uint32_t var = 0;
    std::uint32_t generation = 0;
    bool in_use = false;
    bool draining = false;
  };

  const Link& checked_link(LinkId id) const;

  std::string_view link_name(std::uint32_t link) const {
    const std::uint32_t begin = link == 0 ? 0 : link_name_ends_[link - 1];
    return std::string_view(link_names_).substr(begin, link_name_ends_[link] - begin);
  }

  std::uint32_t checked_flow(FlowId id) const;
  void validate(const FlowSpec& spec) const;
  std::uint32_t acquire_var();
  std::uint32_t acquire_flow();
  void settle(Var& var);
  void settle(Link& link);
  std::uint32_t find_crossing(std::uint32_t var, std::uint32_t link);
  void add_crossing(std::uint32_t var, std::uint32_t link);
  void remove_crossing(std::uint32_t var, std::uint32_t link);
  // All of them at once, when the variable's last members leave: no search, no compaction.
  void remove_crossings(std::uint32_t var);
  // Takes `count` crossings at `rate` off the link's load and flow count.
  void unload(std::uint32_t link, double rate, std::uint32_t count);
  // Swap-removes the crosser at `position`, mending the back-index of the one moved there.
  void remove_crosser(Link& link, std::uint32_t position);
  void add_member(std::uint32_t var, std::uint32_t flow);
  void on_drain(std::uint32_t var);
  FlowRecord record_of(std::uint32_t flow) const;
  void report_drained(std::uint32_t flow);
  void deliver(std::uint32_t flow);
  void request_resolve();
  void resolve_pending();
  void resolve(const std::vector<std::uint32_t>& seed_vars,
               const std::vector<std::uint32_t>& seed_links);
  void couple(std::uint32_t var);
  bool visit_link(std::uint32_t link);
  void collect_coupled(std::size_t& scanned);
  bool solve_coupled();
  void apply_rates();
  void schedule_drain(std::uint32_t var);
  void notify_rate(std::uint32_t flow, double rate) const;
  void note_load_change(std::uint32_t link);
  void report_load_changes();
  void release_var(std::uint32_t var);
  bool is_full(const Link& link) const;
  std::string link_label(std::uint32_t link) const;

  Simulator& sim_;
  std::vector<Link> links_;
  // By link, its latency: summed link by link over long paths (a route's, a flow's), so it is
  // kept apart from the solver's state, and link() inline lets a caller that reads only the
  // latency touch nothing else.
  std::vector<Duration> link_latencies_;
  std::string link_names_;                     // every link's name, one after another
  std::vector<std::uint32_t> link_name_ends_;  // by link, where its name ends in link_names_
  std::vector<Var> vars_;
  std::vector<std::uint32_t> free_vars_;

  // find_crossing's index of one variable's crossings by link, for a variable that crosses many
  // links joined by flows over links that many variables cross (a group whose members are
  // adaptive-routing lanes): per link, the stamp of the indexing that saw it and the crossing.
  struct Stamp {
    std::uint32_t generation = 0;
    std::uint32_t crossing = 0;
  };

  std::vector<Stamp> stamps_;
  std::uint32_t stamp_generation_ = 0;
  static constexpr std::uint32_t kNoVar = 0xffffffffU;
  std::uint32_t stamped_var_ = kNoVar;
  std::vector<std::uint32_t> groups_;  // GroupId -> its rate variable
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_flows_;
  std::size_t draining_flows_ = 0;
  RateObserver rate_observer_;
  SolverStats stats_;

  // For the link-load observer, and sized only while one is set: by link, the load last
  // reported and whether it is queued in load_changed_links_ for this instant's report.
  struct LoadReport {
    double load = 0.0;
    bool queued = false;
  };

  LinkLoadObserver link_load_observer_;
  std::vector<LoadReport> load_reports_;
  std::vector<std::uint32_t> load_changed_links_;

  // Scratch space of the re-solve, kept to avoid allocating on every event.
  std::uint64_t pass_ = 0;  // 64 bits: a stamp never comes round again
  std::vector<std::uint32_t> coupled_vars_;
  std::vector<std::uint32_t> full_links_;     // links all of whose crossers are coupled
  std::vector<std::uint32_t> partial_links_;  // links also crossed by uncoupled variables
  std::vector<double> sub_capacity_;
  std::vector<double> old_coupled_load_;
  std::vector<double> outside_load_;  // what uncoupled crossers of a partial link take
  std::vector<double> new_coupled_load_;
  std::vector<std::uint32_t> sub_offsets_;
  std::vector<LinkIndex> sub_links_;
  std::vector<std::uint32_t> sub_link_times_;
  std::vector<double> sub_weight_;
  std::vector<double> sub_cap_;
  std::vector<double> sub_rates_;
  // Changes made at the current instant, solved together by resolve_event_.
  EventId resolve_event_;
  std::vector<std::uint32_t> pending_vars_;
  std::vector<std::uint32_t> pending_links_;
  std::vector<std::uint32_t> pending_started_;
  std::vector<std::uint32_t> drained_;
  MaxMinSolver solver_;
};

// Steps that both the flows' events (flow_network.cpp) and the re-solve (flow_network_resolve.cpp)
// take on every change, defined here so that both can inline them.

inline void FlowNetwork::settle(Var& var) {
  var.progress += var.rate * to_seconds(sim_.now() - var.last_update);
  var.last_update = sim_.now();
}

inline void FlowNetwork::settle(Link& link) {
  const Duration elapsed = sim_.now() - link.last_change;
  link.counters.bytes_carried += link.load * to_seconds(elapsed);
  if (link.counters.active_flows > 0) {
    link.counters.busy_time += elapsed;
  }
  link.last_change = sim_.now();
}

inline void FlowNetwork::note_load_change(std::uint32_t link) {
  if (!link_load_observer_) {
    return;  // The whole cost of the hook when nobody observes: this test.
  }
  if (link >= load_reports_.size()) {
    load_reports_.resize(links_.size());
  }
  LoadReport& report = load_reports_[link];
  if (!report.queued) {
    report.queued = true;
    load_changed_links_.push_back(link);
  }
}

inline bool FlowNetwork::is_full(const Link& link) const {
  return link.load >= link.capacity * (1.0 - kRateEpsilon);
}

}  // namespace railsim::sim
