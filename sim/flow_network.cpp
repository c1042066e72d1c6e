// File: sim/flow_network.cpp
// FlowNetwork's links, groups, flows and counters: what starts, drains and delivers flows (see
// flow_network.hpp for the model; the re-solve of the rates is flow_network_resolve.cpp).
#include "sim/flow_network.hpp"

#include "sim/assert.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>

namespace railsim::sim {
namespace {

constexpr std::uint32_t kNoCrossing = 0xffffffffU;
// A variable's crossings and a link's crossers this long or shorter are searched by a scan.
constexpr std::size_t kScannedCrossings = 64;

// Order of a variable's members: the first to drain on top (ties by flow slot, so runs repeat).
constexpr auto kDrainsLater = [](const auto& a, const auto& b) {
  return a.target != b.target ? a.target > b.target : a.flow > b.flow;
};

// A link in a message: its name quoted, or its index where it has none.
std::string label(std::string_view name, std::uint32_t index) {
  return name.empty() ? fmt::format("#{}", index) : fmt::format("'{}'", name);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Links and groups

LinkId FlowNetwork::add_link(LinkSpec spec) {
  const auto index = static_cast<std::uint32_t>(links_.size());
  if (!(spec.capacity.bytes_per_s > 0.0) || !std::isfinite(spec.capacity.bytes_per_s)) {
    throw InputError(fmt::format("link {}: capacity {} bytes/s, expected a finite rate > 0",
                                 label(spec.name, index), spec.capacity.bytes_per_s));
  }
  if (spec.latency < Duration::zero()) {
    throw InputError(fmt::format("link {}: latency {}, expected >= 0", label(spec.name, index),
                                 format_duration(spec.latency)));
  }
  if (link_names_.size() + spec.name.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw InputError(
        fmt::format("link {}: the links' names exceed 4 GiB", label(spec.name, index)));
  }
  Link link;
  link.capacity = spec.capacity.bytes_per_s;
  link.last_change = sim_.now();
  links_.push_back(std::move(link));
  link_latencies_.push_back(spec.latency);
  link_names_ += spec.name;
  link_name_ends_.push_back(static_cast<std::uint32_t>(link_names_.size()));
  return LinkId{index};
}

const FlowNetwork::Link& FlowNetwork::checked_link(LinkId id) const {
  if (id.index >= links_.size()) {
    throw InputError(fmt::format("link id {} does not exist: the network has {} links", id.index,
                                 links_.size()));
  }
  return links_[id.index];
}

std::optional<LinkId> FlowNetwork::find_link(std::string_view name) const {
  for (std::uint32_t l = 0; l < link_count(); ++l) {
    if (link_name(l) == name) {
      return LinkId{l};
    }
  }
  return std::nullopt;
}

std::string FlowNetwork::link_label(std::uint32_t link) const {
  return label(link_name(link), link);
}

void FlowNetwork::set_link_capacity(LinkId id, Bandwidth capacity) {
  checked_link(id);
  if (!(capacity.bytes_per_s > 0.0) || !std::isfinite(capacity.bytes_per_s)) {
    throw InputError(fmt::format("link {}: capacity {} bytes/s, expected a finite rate > 0",
                                 link_label(id.index), capacity.bytes_per_s));
  }
  Link& link = links_[id.index];
  settle(link);
  link.capacity = capacity.bytes_per_s;
  pending_links_.push_back(id.index);
  request_resolve();
}

GroupId FlowNetwork::create_group(double weight, Bandwidth rate_cap) {
  if (!(weight > 0.0) || !std::isfinite(weight)) {
    throw InputError(fmt::format("flow group: weight {}, expected a finite value > 0", weight));
  }
  if (!(rate_cap.bytes_per_s > 0.0)) {
    throw InputError(
        fmt::format("flow group: rate cap {} bytes/s, expected > 0", rate_cap.bytes_per_s));
  }
  const std::uint32_t var = acquire_var();
  Var& v = vars_[var];
  v.weight = weight;
  v.group_cap = rate_cap.bytes_per_s;
  v.cap = rate_cap.bytes_per_s;
  v.is_group = true;
  groups_.push_back(var);
  return GroupId{static_cast<std::uint32_t>(groups_.size() - 1)};
}

// ---------------------------------------------------------------------------------------------
// Flows

void FlowNetwork::validate(const FlowSpec& spec) const {
  if (spec.path.empty()) {
    throw InputError("a flow needs a path of at least one link, got an empty path");
  }
  if (spec.size.count < 0) {
    throw InputError(fmt::format("flow size {} bytes, expected >= 0", spec.size.count));
  }
  if (!(spec.rate_cap.bytes_per_s > 0.0)) {
    throw InputError(
        fmt::format("flow rate cap {} bytes/s, expected > 0", spec.rate_cap.bytes_per_s));
  }
  if (!(spec.weight > 0.0) || !std::isfinite(spec.weight)) {
    throw InputError(fmt::format("flow weight {}, expected a finite value > 0", spec.weight));
  }
  if (spec.group) {
    if (spec.group->index >= groups_.size()) {
      throw InputError(fmt::format("flow group id {} does not exist: the network has {} groups",
                                   spec.group->index, groups_.size()));
    }
    if (spec.weight != 1.0) {
      throw InputError(
          fmt::format("flow weight {} on a member of group {}: a member takes its group's weight",
                      spec.weight, spec.group->index));
    }
  }
  for (LinkId link : spec.path) {
    checked_link(link);
  }
}

FlowId FlowNetwork::start_flow(FlowSpec spec) {
  validate(spec);
  const std::uint32_t f = acquire_flow();
  Flow& flow = flows_[f];
  flow.start = sim_.now();
  flow.latency = Duration::zero();
  for (LinkId link : spec.path) {
    flow.latency += link_latencies_[link.index];
  }
  const bool empty = spec.size.count == 0;
  const std::optional<GroupId> group = spec.group;
  flow.spec = std::move(spec);
  const FlowId id{f, flow.generation};
  if (empty) {
    // Nothing to drain: delivered one path latency from now, without touching any link.
    flow.drained = flow.start;
    if (flow.spec.on_drained) {
      sim_.schedule_after(Duration::zero(), [this, f] { report_drained(f); });
    }
    sim_.schedule_after(flow.latency, [this, f] { deliver(f); });
    return id;
  }
  const std::uint32_t var = group ? groups_[group->index] : acquire_var();
  if (!group) {
    Var& v = vars_[var];
    v.weight = flow.spec.weight;
    v.cap = flow.spec.rate_cap.bytes_per_s;
    v.last_update = sim_.now();
  }
  add_member(var, f);
  ++draining_flows_;
  pending_vars_.push_back(var);
  pending_started_.push_back(f);
  request_resolve();
  return id;
}

std::uint32_t FlowNetwork::checked_flow(FlowId id) const {
  if (!contains(id)) {
    throw InputError(
        fmt::format("flow id {}.{} does not name a flow in the network (it was "
                    "delivered, or never started)",
                    id.slot, id.generation));
  }
  return id.slot;
}

bool FlowNetwork::contains(FlowId id) const {
  return id.slot < flows_.size() && flows_[id.slot].in_use &&
         flows_[id.slot].generation == id.generation;
}

Bandwidth FlowNetwork::rate(FlowId id) const {
  const Flow& flow = flows_[checked_flow(id)];
  return Bandwidth{flow.draining ? vars_[flow.var].rate : 0.0};
}

double FlowNetwork::bytes_sent(FlowId id) const {
  const Flow& flow = flows_[checked_flow(id)];
  if (!flow.draining) {
    return static_cast<double>(flow.spec.size.count);
  }
  const Var& v = vars_[flow.var];
  const double progress = v.progress + v.rate * to_seconds(sim_.now() - v.last_update);
  return progress - flow.start_progress;
}

std::uint32_t FlowNetwork::acquire_var() {
  if (free_vars_.empty()) {
    vars_.emplace_back();
    free_vars_.push_back(static_cast<std::uint32_t>(vars_.size() - 1));
  }
  const std::uint32_t var = free_vars_.back();
  free_vars_.pop_back();
  Var& v = vars_[var];
  v.weight = 1.0;
  v.group_cap = kUnbounded;
  v.cap = kUnbounded;
  v.rate = 0.0;
  v.progress = 0.0;
  v.last_update = sim_.now();
  v.is_group = false;
  v.in_use = true;
  RAILSIM_ASSERT(v.crossings.empty() && v.members.empty(), "a free variable holds nothing");
  return var;
}

void FlowNetwork::release_var(std::uint32_t var) {
  if (var == stamped_var_) {
    stamped_var_ = kNoVar;  // the slot may come back as another variable
  }
  Var& v = vars_[var];
  sim_.cancel(v.drain_event);
  v.in_use = false;
  free_vars_.push_back(var);
}

void FlowNetwork::reserve_flows(std::size_t more) {
  const std::size_t in_use = flows_.size() - free_flows_.size();
  flows_.reserve(std::max(flows_.size(), in_use + more));
}

std::uint32_t FlowNetwork::acquire_flow() {
  if (free_flows_.empty()) {
    flows_.emplace_back();
    free_flows_.push_back(static_cast<std::uint32_t>(flows_.size() - 1));
  }
  const std::uint32_t f = free_flows_.back();
  free_flows_.pop_back();
  flows_[f].in_use = true;
  flows_[f].draining = false;
  return f;
}

void FlowNetwork::add_member(std::uint32_t var, std::uint32_t f) {
  Var& v = vars_[var];
  settle(v);
  Flow& flow = flows_[f];
  flow.var = var;
  flow.draining = true;
  flow.start_progress = v.progress;
  v.members.push_back(Member{v.progress + static_cast<double>(flow.spec.size.count), f});
  std::push_heap(v.members.begin(), v.members.end(), kDrainsLater);
  v.cap = std::min(v.cap, flow.spec.rate_cap.bytes_per_s);
  if (v.crossings.empty()) {
    // A single flow's links are all of its variable's, and so are a bundle's: held exactly,
    // not in a doubled buffer. (A group of many members grows as they join.)
    v.crossings.reserve(flow.spec.path.size());
  }
  for (LinkId link : flow.spec.path) {
    add_crossing(var, link.index);
  }
}

std::uint32_t FlowNetwork::find_crossing(std::uint32_t var, std::uint32_t link) {
  // Search whichever list is shorter: a group of thousands of stages crosses thousands of links,
  // and a busy link is crossed by thousands of variables. Where both are long (a group whose
  // members are adaptive-routing lanes, each crossing spines that every group crosses), index the
  // variable's crossings by link once, and look up while its members keep joining.
  const Var& v = vars_[var];
  const Link& l = links_[link];
  if (l.crossers.size() > kScannedCrossings && v.crossings.size() > kScannedCrossings) {
    if (stamped_var_ != var) {
      stamps_.resize(links_.size());
      if (++stamp_generation_ == 0) {  // wrapped: no stamp may look current
        std::fill(stamps_.begin(), stamps_.end(), Stamp{});
        stamp_generation_ = 1;
      }
      for (std::uint32_t i = 0; i < v.crossings.size(); ++i) {
        stamps_[v.crossings[i].link] = {stamp_generation_, i};
      }
      stamped_var_ = var;
    }
    const Stamp& stamp = stamps_[link];
    return stamp.generation == stamp_generation_ ? stamp.crossing : kNoCrossing;
  }
  if (l.crossers.size() < v.crossings.size()) {
    for (const Crosser& crosser : l.crossers) {
      if (crosser.var == var) {
        return crosser.crossing;
      }
    }
    return kNoCrossing;
  }
  for (std::uint32_t i = 0; i < v.crossings.size(); ++i) {
    if (v.crossings[i].link == link) {
      return i;
    }
  }
  return kNoCrossing;
}

void FlowNetwork::add_crossing(std::uint32_t var, std::uint32_t link) {
  Var& v = vars_[var];
  Link& l = links_[link];
  settle(l);
  l.load += v.rate;  // A group already running adds its rate here at once.
  note_load_change(link);
  ++l.counters.active_flows;
  l.counters.peak_flows = std::max(l.counters.peak_flows, l.counters.active_flows);
  const std::uint32_t existing = find_crossing(var, link);
  if (existing != kNoCrossing) {
    ++v.crossings[existing].count;
    return;
  }
  l.crossers.push_back(Crosser{var, static_cast<std::uint32_t>(v.crossings.size())});
  v.crossings.push_back(Crossing{link, 1, static_cast<std::uint32_t>(l.crossers.size() - 1)});
  if (var == stamped_var_) {
    stamps_[link] = {stamp_generation_, static_cast<std::uint32_t>(v.crossings.size() - 1)};
  }
}

void FlowNetwork::remove_crossing(std::uint32_t var, std::uint32_t link) {
  if (var == stamped_var_) {
    stamped_var_ = kNoVar;  // its crossings move
  }
  Var& v = vars_[var];
  Link& l = links_[link];
  unload(link, v.rate, 1);
  const std::uint32_t index = find_crossing(var, link);
  RAILSIM_ASSERT(index != kNoCrossing, "a member's link is among its variable's crossings");
  if (--v.crossings[index].count > 0) {
    return;
  }
  // Swap-remove from the link's crossers, then from the variable's crossings, mending the
  // back-indices of whatever moved.
  remove_crosser(l, v.crossings[index].position);
  v.crossings[index] = v.crossings.back();
  v.crossings.pop_back();
  if (index < v.crossings.size()) {
    const Crossing& moved = v.crossings[index];
    links_[moved.link].crossers[moved.position].crossing = index;
  }
}

void FlowNetwork::unload(std::uint32_t link, double rate, std::uint32_t count) {
  Link& l = links_[link];
  settle(l);
  for (std::uint32_t k = 0; k < count; ++k) {  // one step each: the rounding of one at a time
    l.load = std::max(0.0, l.load - rate);
  }
  note_load_change(link);
  l.counters.active_flows -= count;
}

void FlowNetwork::remove_crosser(Link& link, std::uint32_t position) {
  link.crossers[position] = link.crossers.back();
  link.crossers.pop_back();
  if (position < link.crossers.size()) {
    const Crosser moved = link.crossers[position];
    vars_[moved.var].crossings[moved.crossing].position = position;
  }
  if (link.crossers.empty()) {
    link.load = 0.0;  // Clears any rounding left by incremental updates.
  }
}

void FlowNetwork::remove_crossings(std::uint32_t var) {
  if (var == stamped_var_) {
    stamped_var_ = kNoVar;
  }
  Var& v = vars_[var];
  for (const Crossing& crossing : v.crossings) {
    unload(crossing.link, v.rate, crossing.count);
    remove_crosser(links_[crossing.link], crossing.position);
  }
  v.crossings.clear();
}

void FlowNetwork::on_drain(std::uint32_t var) {
  Var& v = vars_[var];
  settle(v);
  RAILSIM_ASSERT(!v.members.empty(), "a drain event fires only for a variable with members");
  // The event was set for the first member; others whose remainder would take under a
  // picosecond at this rate drain with it.
  const double slack = v.rate * 1e-12;
  drained_.clear();
  do {
    drained_.push_back(v.members.front().flow);
    std::pop_heap(v.members.begin(), v.members.end(), kDrainsLater);
    v.members.pop_back();
  } while (!v.members.empty() && v.members.front().target <= v.progress + slack);

  // A link that was full before these members left may let its other crossers speed up.
  for (std::uint32_t f : drained_) {
    for (LinkId link : flows_[f].spec.path) {
      if (is_full(links_[link.index])) {
        pending_links_.push_back(link.index);
      }
    }
  }
  for (std::uint32_t f : drained_) {
    Flow& flow = flows_[f];
    flow.draining = false;
    flow.drained = sim_.now();
    --draining_flows_;
    if (!v.members.empty()) {
      for (LinkId link : flow.spec.path) {
        remove_crossing(var, link.index);
      }
    }
  }
  if (v.members.empty()) {
    remove_crossings(var);
    v.rate = 0.0;
    if (!v.is_group) {
      release_var(var);
    }
  } else {
    bool cap_left = false;
    for (std::uint32_t f : drained_) {
      cap_left = cap_left || flows_[f].spec.rate_cap.bytes_per_s == v.cap;
    }
    if (cap_left) {  // A departing member set the cap: find the next smallest.
      v.cap = v.group_cap;
      for (const Member& member : v.members) {
        v.cap = std::min(v.cap, flows_[member.flow].spec.rate_cap.bytes_per_s);
      }
    }
    pending_vars_.push_back(var);
  }
  for (std::uint32_t f : drained_) {
    notify_rate(f, 0.0);
  }
  request_resolve();
  // Callbacks may start flows; the scratch list is moved out meanwhile so that nothing they
  // reach can disturb it, and moved back to keep its capacity.
  std::vector<std::uint32_t> drained = std::move(drained_);
  for (std::uint32_t f : drained) {
    report_drained(f);
  }
  for (std::uint32_t f : drained) {
    if (flows_[f].latency == Duration::zero()) {
      deliver(f);
    } else {
      sim_.schedule_after(flows_[f].latency, [this, f] { deliver(f); });
    }
  }
  drained_ = std::move(drained);
}

FlowRecord FlowNetwork::record_of(std::uint32_t f) const {
  const Flow& flow = flows_[f];
  return FlowRecord{
      FlowId{f, flow.generation}, flow.spec.tag, flow.spec.size, flow.start, flow.drained,
      flow.drained + flow.latency};
}

void FlowNetwork::report_drained(std::uint32_t f) {
  if (flows_[f].spec.on_drained) {
    // A copy: the callback may start flows and so move flows_.
    const FlowCallback callback = flows_[f].spec.on_drained;
    callback(record_of(f));
  }
}

void FlowNetwork::deliver(std::uint32_t f) {
  Flow& flow = flows_[f];
  const FlowRecord record = record_of(f);
  FlowCallback callback = std::move(flow.spec.on_complete);
  flow.spec = FlowSpec{};
  flow.in_use = false;
  ++flow.generation;
  free_flows_.push_back(f);
  if (callback) {
    callback(record);
  }
}

void FlowNetwork::notify_rate(std::uint32_t f, double rate) const {
  if (rate_observer_) {
    const Flow& flow = flows_[f];
    rate_observer_(
        RateChange{FlowId{f, flow.generation}, flow.spec.tag, sim_.now(), Bandwidth{rate}});
  }
}

void FlowNetwork::set_link_load_observer(LinkLoadObserver observer) {
  link_load_observer_ = std::move(observer);
  load_reports_.clear();
  load_changed_links_.clear();
}

void FlowNetwork::request_resolve() {
  if (!sim_.pending(resolve_event_)) {
    resolve_event_ = sim_.schedule_at(sim_.now(), [this] { resolve_pending(); });
  }
}

// ---------------------------------------------------------------------------------------------
// Counters and checks

LinkCounters FlowNetwork::counters(LinkId id) const {
  const Link& link = checked_link(id);
  LinkCounters counters = link.counters;
  const Duration elapsed = sim_.now() - link.last_change;
  counters.bytes_carried += link.load * to_seconds(elapsed);
  if (counters.active_flows > 0) {
    counters.busy_time += elapsed;
  }
  return counters;
}

Bandwidth FlowNetwork::load(LinkId id) const { return Bandwidth{checked_link(id).load}; }

NetworkSnapshot FlowNetwork::snapshot() const {
  NetworkSnapshot snap;
  snap.problem.link_capacity.reserve(links_.size());
  for (const Link& link : links_) {
    snap.problem.link_capacity.push_back(link.capacity);
  }
  for (std::uint32_t var = 0; var < vars_.size(); ++var) {
    const Var& v = vars_[var];
    if (!v.in_use || v.members.empty()) {
      continue;
    }
    FlowDemand demand{{}, v.weight, v.cap};
    for (const Crossing& crossing : v.crossings) {
      demand.links.insert(demand.links.end(), crossing.count, crossing.link);
    }
    std::sort(demand.links.begin(), demand.links.end());
    snap.problem.flows.push_back(std::move(demand));
    snap.rates.push_back(v.rate);
    std::vector<FlowId> members;
    for (const Member& member : v.members) {
      members.push_back(FlowId{member.flow, flows_[member.flow].generation});
    }
    snap.members.push_back(std::move(members));
  }
  return snap;
}

}  // namespace railsim::sim
