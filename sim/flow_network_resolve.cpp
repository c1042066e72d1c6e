// File: sim/flow_network_resolve.cpp
// FlowNetwork's incremental re-solve (flow_network.hpp, "Incremental solving"): the rate
// variables coupled to this instant's changes through full links, their max-min sub-problem on
// the links' residual capacities, widened while the new rates fill a link shared with others;
// then the new rates, their drain events and the links' load reports.
#include "sim/flow_network.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace railsim::sim {

void FlowNetwork::resolve_pending() {
  resolve(pending_vars_, pending_links_);
  for (std::uint32_t var : pending_vars_) {
    // Its members changed, so its first drain may have changed even where its rate did not.
    if (vars_[var].in_use && !vars_[var].members.empty()) {
      schedule_drain(var);
    }
  }
  for (std::uint32_t f : pending_started_) {
    const Flow& flow = flows_[f];
    if (flow.draining && vars_[flow.var].rate_pass != pass_) {
      notify_rate(f, vars_[flow.var].rate);  // apply_rates() told only the variables it changed
    }
  }
  pending_vars_.clear();
  pending_links_.clear();
  pending_started_.clear();
  report_load_changes();
}

void FlowNetwork::resolve(const std::vector<std::uint32_t>& seed_vars,
                          const std::vector<std::uint32_t>& seed_links) {
  ++pass_;
  coupled_vars_.clear();
  full_links_.clear();
  partial_links_.clear();
  for (std::uint32_t var : seed_vars) {
    couple(var);
  }
  for (std::uint32_t link : seed_links) {
    visit_link(link);
  }
  std::size_t scanned = 0;
  do {
    collect_coupled(scanned);
  } while (solve_coupled());
  apply_rates();
}

void FlowNetwork::couple(std::uint32_t var) {
  Var& v = vars_[var];
  if (v.coupled == pass_ || v.members.empty()) {
    return;
  }
  v.coupled = pass_;
  coupled_vars_.push_back(var);
}

bool FlowNetwork::visit_link(std::uint32_t link) {
  Link& l = links_[link];
  if (l.visited == pass_) {
    return false;
  }
  l.visited = pass_;
  full_links_.push_back(link);
  const std::size_t before = coupled_vars_.size();
  for (const Crosser& crosser : l.crossers) {
    couple(crosser.var);
  }
  return coupled_vars_.size() > before;
}

void FlowNetwork::collect_coupled(std::size_t& scanned) {
  // Breadth-first from the coupled variables through full links; a link with room to spare
  // is only noted, since it couples nobody unless the new rates fill it.
  for (; scanned < coupled_vars_.size(); ++scanned) {
    const Var& v = vars_[coupled_vars_[scanned]];
    for (const Crossing& crossing : v.crossings) {
      Link& l = links_[crossing.link];
      if (l.visited == pass_) {
        continue;
      }
      if (is_full(l)) {
        visit_link(crossing.link);
      } else if (l.touched != pass_) {
        l.touched = pass_;
        partial_links_.push_back(crossing.link);
      }
    }
  }
}

bool FlowNetwork::solve_coupled() {
  // Number the sub-problem's links: the fully coupled ones first, then the partly coupled.
  std::uint32_t count = 0;
  for (std::uint32_t link : full_links_) {
    links_[link].local = count++;
  }
  for (std::uint32_t link : partial_links_) {
    if (links_[link].visited != pass_) {
      links_[link].local = count++;
    }
  }
  sub_capacity_.assign(count, 0.0);
  old_coupled_load_.assign(count, 0.0);
  outside_load_.assign(count, 0.0);
  new_coupled_load_.assign(count, 0.0);
  sub_offsets_.assign(1, 0);
  sub_links_.clear();
  sub_link_times_.clear();
  sub_weight_.clear();
  sub_cap_.clear();
  for (std::uint32_t var : coupled_vars_) {
    const Var& v = vars_[var];
    for (const Crossing& crossing : v.crossings) {
      const std::uint32_t local = links_[crossing.link].local;
      sub_links_.push_back(local);
      sub_link_times_.push_back(crossing.count);
      old_coupled_load_[local] += v.rate * crossing.count;
    }
    sub_offsets_.push_back(static_cast<std::uint32_t>(sub_links_.size()));
    sub_weight_.push_back(v.weight);
    sub_cap_.push_back(v.cap);
  }
  for (std::uint32_t link : full_links_) {
    sub_capacity_[links_[link].local] = links_[link].capacity;
  }
  for (std::uint32_t link : partial_links_) {
    const Link& l = links_[link];
    if (l.visited != pass_) {
      // What the uncoupled crossers take stays theirs; the coupled ones share the rest.
      outside_load_[l.local] = std::max(0.0, l.load - old_coupled_load_[l.local]);
      sub_capacity_[l.local] = std::max(0.0, l.capacity - outside_load_[l.local]);
    }
  }
  sub_rates_.assign(coupled_vars_.size(), 0.0);
  solver_.solve(SharingProblemView{sub_capacity_, sub_offsets_, sub_links_, sub_link_times_,
                                   sub_weight_, sub_cap_},
                sub_rates_);
  ++stats_.solves;
  stats_.variables_solved += coupled_vars_.size();

  for (std::size_t i = 0; i < coupled_vars_.size(); ++i) {
    for (std::uint32_t k = sub_offsets_[i]; k < sub_offsets_[i + 1]; ++k) {
      new_coupled_load_[sub_links_[k]] += sub_rates_[i] * sub_link_times_[k];
    }
  }
  // A partly coupled link that the new rates fill couples its other crossers: widen, re-solve.
  bool widened = false;
  for (std::uint32_t link : partial_links_) {
    const Link& l = links_[link];
    if (l.visited == pass_) {
      continue;
    }
    if (outside_load_[l.local] + new_coupled_load_[l.local] >= l.capacity * (1.0 - kRateEpsilon) &&
        visit_link(link)) {
      widened = true;
    }
  }
  return widened;
}

void FlowNetwork::apply_rates() {
  for (std::uint32_t link : full_links_) {
    Link& l = links_[link];
    settle(l);
    l.load = new_coupled_load_[l.local];
    note_load_change(link);
  }
  for (std::uint32_t link : partial_links_) {
    Link& l = links_[link];
    if (l.visited == pass_) {
      continue;
    }
    settle(l);
    l.load = outside_load_[l.local] + new_coupled_load_[l.local];
    note_load_change(link);
  }
  for (std::size_t i = 0; i < coupled_vars_.size(); ++i) {
    const std::uint32_t var = coupled_vars_[i];
    Var& v = vars_[var];
    if (sub_rates_[i] == v.rate) {
      continue;
    }
    settle(v);
    v.rate = sub_rates_[i];
    v.rate_pass = pass_;
    schedule_drain(var);
    if (rate_observer_) {
      for (const Member& member : v.members) {
        notify_rate(member.flow, v.rate);
      }
    }
  }
}

void FlowNetwork::schedule_drain(std::uint32_t var) {
  Var& v = vars_[var];
  const Duration wait =
      v.members.empty()
          ? Duration::max()
          : transfer_time_ceil(std::max(0.0, v.members.front().target - v.progress), v.rate);
  if (wait > Duration::max() - sim_.now().time_since_epoch()) {
    sim_.cancel(v.drain_event);  // Stalled at rate zero (or beyond the end of time).
    return;
  }
  const SimTime when = sim_.now() + wait;
  if (!sim_.reschedule(v.drain_event, when)) {
    v.drain_event = sim_.schedule_at(when, [this, var] { on_drain(var); });
  }
}

void FlowNetwork::report_load_changes() {
  // Loads noted at this instant may have come back to where they were (a flow left and its
  // share went to another): only a net move beyond rounding is a change.
  for (std::uint32_t link : load_changed_links_) {
    LoadReport& report = load_reports_[link];
    report.queued = false;
    const Link& l = links_[link];
    if (std::abs(l.load - report.load) > kRateEpsilon * l.capacity) {
      report.load = l.load;
      link_load_observer_(LinkLoadChange{LinkId{link}, sim_.now(), Bandwidth{l.load}});
    }
  }
  load_changed_links_.clear();
}

}  // namespace railsim::sim
