// File: models/collective/slice_sharing.cpp
// Processor sharing over a plan's transfers (see the header): which links can bind, and the event
// loop over starts and drains.
#include "models/collective/slice_sharing.hpp"

#include "sim/assert.hpp"
#include "sim/indexed_heap.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace railsim::models {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The next event of each connection, at most one: ties go to the lower index, so that a run
// repeats.
struct NextEvent {
  double time = 0.0;
  std::uint32_t id = 0;  // the connection
};

struct Earlier {
  bool operator()(const NextEvent& a, const NextEvent& b) const {
    return a.time < b.time || (a.time == b.time && a.id < b.id);
  }
};

using EventHeap = sim::IndexedHeap<NextEvent, Earlier>;

// A queue of (transfer, time) over one vector, for the run's FIFOs: a connection's few entries in
// flight stay together, and once grown it allocates nothing (a std::deque takes a 512-byte block
// of its own per FIFO and allocates again every 32 entries: on a 512-node tree, most of the run's
// memory and its cache misses).
class Fifo {
 public:
  using Entry = std::pair<std::int64_t, double>;

  bool empty() const { return head_ == entries_.size(); }

  const Entry& front() const { return entries_[head_]; }

  void pop_front() {
    if (++head_ == entries_.size()) {
      entries_.clear();
      head_ = 0;
    }
  }

  void emplace_back(std::int64_t transfer, double when) {
    // Drop the popped entries once they are most of the vector: amortised O(1) per entry.
    if (head_ >= kCompactAt && 2 * head_ >= entries_.size()) {
      entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    entries_.emplace_back(transfer, when);
  }

 private:
  static constexpr std::size_t kCompactAt = 16;
  std::vector<Entry> entries_;
  std::size_t head_ = 0;
};

// The links of a route, each with how many of the route's lanes cross it, by link index.
std::vector<std::pair<std::uint32_t, std::uint32_t>> lanes_on(const SharingRoute& route) {
  std::vector<std::uint32_t> links;
  for (const auto& lane : route.lanes) {
    for (const sim::LinkId link : lane) {
      links.push_back(link.index);
    }
  }
  std::sort(links.begin(), links.end());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> counted;  // (link, lanes)
  for (const std::uint32_t link : links) {
    if (counted.empty() || counted.back().first != link) {
      counted.emplace_back(link, 0);
    }
    ++counted.back().second;
  }
  return counted;
}

}  // namespace

SliceSharing::SliceSharing(const sim::FlowNetwork& network,
                           std::vector<SharingConnection> connections,
                           double wire_factor,
                           bool streams)
    : kept_(std::move(connections)),
      link_capacity_(network.link_count()),
      connection_count_(kept_.size()),
      wire_factor_(wire_factor),
      streams_(streams) {
  for (std::size_t link = 0; link < link_capacity_.size(); ++link) {
    link_capacity_[link] =
        network.link(sim::LinkId{static_cast<std::uint32_t>(link)}).capacity.bytes_per_s;
  }
}

const std::vector<std::vector<SliceSharing::LaneCounts>>& SliceSharing::lane_counts() {
  if (lane_counts_.empty()) {
    lane_counts_.reserve(kept_.size());
    for (const SharingConnection& c : kept_) {
      std::vector<LaneCounts>& routes = lane_counts_.emplace_back();
      for (const SharingRoute& route : c.routes) {
        LaneCounts& counted = routes.emplace_back(lanes_on(route));
        for (auto& [link, lanes] : counted) {
          lanes *= c.copies;
        }
      }
    }
  }
  return lane_counts_;
}

const std::vector<double>& SliceSharing::alone_rates() {
  RAILSIM_ASSERT(!prepared_ || alone_rates_.size() == connection_count_,
                 "the alone rates are worked out before the sharing is prepared");
  if (alone_rates_.empty()) {
    const std::vector<std::vector<LaneCounts>>& counts = lane_counts();
    alone_rates_.reserve(kept_.size());
    for (std::size_t i = 0; i < kept_.size(); ++i) {
      const SharingConnection& c = kept_[i];
      double fastest = 0.0;  // wire B/s, over its routes
      for (std::size_t r = 0; r < c.routes.size(); ++r) {
        const auto lanes = static_cast<double>(c.routes[r].lanes.size());
        double lane_share = c.cap * wire_factor_ / lanes;
        for (const auto& [link, own] : counts[i][r]) {
          lane_share = std::min(lane_share, link_capacity_[link] / own);
        }
        fastest = std::max(fastest, lane_share * lanes);
      }
      alone_rates_.push_back(fastest / wire_factor_);
    }
  }
  return alone_rates_;
}

void SliceSharing::prepare() {
  lane_counts();
  const std::vector<std::vector<LaneCounts>> counts = std::move(lane_counts_);
  std::vector<SharingConnection> connections = std::move(kept_);
  const std::size_t link_count = link_capacity_.size();
  // Per connection and link, the most lanes of one of its routes that cross it; per link, the
  // sum over connections: the most lanes that can ever share it.
  std::vector<std::uint32_t> most(link_count, 0);
  std::vector<std::uint32_t> own(link_count, 0);
  const auto count_own = [&](std::size_t i, bool add) {
    for (const LaneCounts& route : counts[i]) {
      for (const auto& [link, lanes] : route) {
        own[link] = add ? std::max(own[link], lanes) : 0;
      }
    }
  };
  for (std::size_t i = 0; i < connections.size(); ++i) {
    count_own(i, true);
    for (const LaneCounts& route : counts[i]) {
      for (const auto& [link, lanes] : route) {
        most[link] += own[link];
        own[link] = 0;
      }
    }
  }
  std::vector<std::int64_t> shared_index(link_count, -1);
  connections_.reserve(connections.size());
  for (std::size_t i = 0; i < connections.size(); ++i) {
    SharingConnection& c = connections[i];
    RAILSIM_ASSERT(!c.routes.empty() || c.transfers == 0, "a connection that sends has a route");
    Connection& out = connections_.emplace_back();
    out.transfers = c.transfers;
    out.inputs = std::move(c.inputs);
    out.offset = c.offset;
    out.period = c.period;
    out.post_s = c.post_s;
    out.post_every = c.post_every;
    out.first_slot = static_cast<std::uint32_t>(slots_);
    slots_ += out.inputs.size();
    count_own(i, true);
    double rerated = 0.0;  // the most connections one transfer's start or drain re-rates
    for (std::size_t r = 0; r < c.routes.size(); ++r) {
      const SharingRoute& route = c.routes[r];
      RAILSIM_ASSERT(!route.lanes.empty(), "a route has a lane");
      Route& into = out.routes.emplace_back();
      into.lanes = static_cast<std::uint32_t>(route.lanes.size());
      into.delay_s = route.delay_s;
      into.lane_share = c.cap * wire_factor_ / into.lanes;
      LaneCounts contested;
      for (const auto& [link, lanes] : counts[i][r]) {
        const double capacity = link_capacity_[link];
        if (most[link] == own[link]) {
          // Only this connection's own lanes ever cross it: a fixed share.
          into.lane_share = std::min(into.lane_share, capacity / lanes);
        } else {
          contested.emplace_back(link, lanes);
        }
      }
      double crossers = 0.0;
      for (const auto& [link, lanes] : contested) {
        const double capacity = link_capacity_[link];
        if (capacity / most[link] >= into.lane_share) {
          continue;  // even full, it leaves every lane more than the lane can take
        }
        if (shared_index[link] < 0) {
          shared_index[link] = static_cast<std::int64_t>(shared_capacity_.size());
          shared_capacity_.push_back(capacity);
        }
        into.shared.push_back({static_cast<std::uint32_t>(shared_index[link]), lanes});
        crossers += most[link];
      }
      rerated = std::max(rerated, crossers);
    }
    work_ += static_cast<double>(c.transfers) * (1.0 + rerated);
    count_own(i, false);
  }
  users_.resize(connections_.size());
  for (std::size_t i = 0; i < connections_.size(); ++i) {
    const Connection& c = connections_[i];
    for (std::size_t k = 0; k < c.inputs.size(); ++k) {
      RAILSIM_ASSERT(c.inputs[k] < connections_.size(), "an input is a connection of the plan");
      users_[c.inputs[k]].push_back(
          {static_cast<std::uint32_t>(i), c.first_slot + static_cast<std::uint32_t>(k)});
    }
  }
  kept_.clear();
  link_capacity_ = {};
  prepared_ = true;
}

double SliceSharing::work() {
  if (!prepared_) {
    prepare();
  }
  return work_;
}

struct SliceSharing::Run {
  enum class State : std::uint8_t { kBlocked, kWaiting, kSending, kDone };

  const SliceSharing& sharing;
  const TransferBytes& bytes;
  std::vector<double> floor;  // wire B/s
  // Per connection: its current transfer (waiting or sending) and how it moves.
  std::vector<std::int64_t> next;
  std::vector<State> state;
  std::vector<std::uint32_t> route;
  std::vector<std::uint8_t> on_links;  // counted on its shared links (a transfer with bytes)
  std::vector<double> remaining;       // wire bytes, as of `since`
  std::vector<double> rate;            // wire B/s
  std::vector<double> since;
  std::vector<double> held;
  std::vector<double> free;  // per connection: when it may send again (after a post)
  // Per shared link: the lanes sending on it, and the connections they belong to.
  std::vector<std::uint32_t> lanes_on;
  std::vector<std::vector<std::uint32_t>> sending;
  // Per connection: the last share() that re-rated it, so that one crossing several of the
  // changed links (a switch operation's lanes, every GPU's port) is re-rated once.
  std::vector<std::uint64_t> rerated;
  std::uint64_t shares = 0;
  // Per (connection, input): the input's transfers held so far and not yet forwarded, with
  // when they are held; streamed, those started so far, with when their first byte can be
  // forwarded.
  std::vector<Fifo> sent;
  // Streamed only. Per (connection, input): the input's transfers held so far, and per
  // connection, its drained transfers whose inputs are not all held yet, with their drain times.
  std::vector<Fifo> landed;
  std::vector<Fifo> unheld;
  // Streamed only: the connections hold_streamed has still to look at, kept between calls so
  // that a drain allocates nothing.
  std::vector<std::uint32_t> to_hold;
  EventHeap events;

  Run(const SliceSharing& s, const TransferBytes& b, const std::vector<double>& payload_floor)
      : sharing(s),
        bytes(b),
        floor(payload_floor),
        next(s.connections_.size(), 0),
        state(s.connections_.size(), State::kBlocked),
        route(s.connections_.size(), 0),
        on_links(s.connections_.size(), 0),
        remaining(s.connections_.size(), 0.0),
        rate(s.connections_.size(), 0.0),
        since(s.connections_.size(), 0.0),
        held(s.connections_.size(), 0.0),
        free(s.connections_.size(), 0.0),
        lanes_on(s.shared_capacity_.size(), 0),
        sending(s.shared_capacity_.size()),
        rerated(s.connections_.size(), 0),
        sent(s.slots_),
        landed(s.streams_ ? s.slots_ : 0),
        unheld(s.streams_ ? s.connections_.size() : 0),
        events(s.connections_.size()) {
    RAILSIM_ASSERT(floor.size() == s.connections_.size(), "a floor per connection");
    for (double& f : floor) {
      f *= s.wire_factor_;
    }
  }

  void run() {
    for (std::uint32_t i = 0; i < next.size(); ++i) {
      advance(i, 0.0);
    }
    while (!events.empty()) {
      const auto [now, i] = events.top();
      events.pop();
      if (state[i] == State::kWaiting) {
        send(i, now);
      } else {
        drained(i, now);
      }
    }
    for (std::size_t i = 0; i < state.size(); ++i) {
      RAILSIM_ASSERT(state[i] == State::kDone, "every transfer of the plan was sent");
      RAILSIM_ASSERT(unheld.empty() || unheld[i].empty(), "every transfer was held");
    }
  }

  // Whether transfer t of connection c forwards its inputs' transfer t - offset.
  static bool forwards(const Connection& c, std::int64_t t) {
    return !c.inputs.empty() && (c.period == 0 || t % c.period >= c.offset);
  }

  // The latest time in `fifos` (one per input of c) of the inputs' transfer `need`, or nothing
  // if some input has not reached it yet. Entries before `need` are what c does not forward (a
  // loop's last step).
  static std::optional<double> latest(const Connection& c,
                                      std::vector<Fifo>& fifos,
                                      std::int64_t need) {
    double when = 0.0;
    for (std::uint32_t k = 0; k < c.inputs.size(); ++k) {
      auto& fifo = fifos[c.first_slot + k];
      while (!fifo.empty() && fifo.front().first < need) {
        fifo.pop_front();
      }
      if (fifo.empty()) {
        return std::nullopt;
      }
      RAILSIM_ASSERT(fifo.front().first == need, "inputs are forwarded in order");
      when = std::max(when, fifo.front().second);
    }
    return when;
  }

  // When the data transfer next[i] forwards is held (streamed: can start to be forwarded), or
  // nothing if some of it is not yet.
  std::optional<double> ready(std::uint32_t i) {
    const Connection& c = sharing.connections_[i];
    const std::int64_t t = next[i];
    if (!forwards(c, t)) {
      return 0.0;
    }
    return latest(c, sent, t - c.offset);
  }

  // Transfer t of connection i is held at `when`: its users may forward it (or, streamed, have
  // its last byte).
  void hold(std::uint32_t i, std::int64_t t, double when, double now) {
    held[i] = std::max(held[i], when);
    for (const User& u : sharing.users_[i]) {
      if (sharing.streams_) {
        landed[u.slot].emplace_back(t, when);
      } else {
        sent[u.slot].emplace_back(t, when);
        if (state[u.connection] == State::kBlocked) {
          advance(u.connection, now);
        }
      }
    }
  }

  // Streamed: holds the drained transfers of connection i, and then of its users, whose inputs'
  // last bytes are all held, in order.
  void hold_streamed(std::uint32_t first, double now) {
    to_hold.assign(1, first);
    while (!to_hold.empty()) {
      const std::uint32_t i = to_hold.back();
      to_hold.pop_back();
      const Connection& c = sharing.connections_[i];
      bool any = false;
      while (!unheld[i].empty()) {
        const auto [t, drain] = unheld[i].front();
        double last = drain;
        if (forwards(c, t)) {
          const std::optional<double> inputs = latest(c, landed, t - c.offset);
          if (!inputs) {
            break;
          }
          last = std::max(last, *inputs);
        }
        unheld[i].pop_front();
        const auto r = static_cast<std::size_t>(t % static_cast<std::int64_t>(c.routes.size()));
        hold(i, t, last + c.routes[r].delay_s, now);
        any = true;
      }
      if (any) {
        for (const User& u : sharing.users_[i]) {
          to_hold.push_back(u.connection);
        }
      }
    }
  }

  // Connection i is idle: wait for its next transfer's data, or finish.
  void advance(std::uint32_t i, double now) {
    if (next[i] == sharing.connections_[i].transfers) {
      state[i] = State::kDone;
      return;
    }
    const std::optional<double> when = ready(i);
    if (!when) {
      state[i] = State::kBlocked;
      return;
    }
    state[i] = State::kWaiting;
    events.set({std::max({now, *when, free[i]}), i});
  }

  double rate_of(std::uint32_t i) const {
    const Route& r = sharing.connections_[i].routes[route[i]];
    double share = r.lane_share;
    for (const SharedLink& s : r.shared) {
      share = std::min(share, sharing.shared_capacity_[s.link] / lanes_on[s.link]);
    }
    return std::max(floor[i], share * r.lanes);
  }

  void reschedule(std::uint32_t i, double now) {
    const double new_rate = rate_of(i);
    if (new_rate == rate[i]) {
      return;  // held by its floor, its cap or another link
    }
    remaining[i] = std::max(0.0, remaining[i] - rate[i] * (now - since[i]));
    since[i] = now;
    rate[i] = new_rate;
    events.set({now + remaining[i] / rate[i], i});
  }

  // Connection i joins (+1) or leaves (-1) its shared links; the others there move at new rates.
  void share(std::uint32_t i, int sign, double now) {
    const Route& r = sharing.connections_[i].routes[route[i]];
    for (const SharedLink& s : r.shared) {
      lanes_on[s.link] = static_cast<std::uint32_t>(static_cast<int>(lanes_on[s.link]) +
                                                    sign * static_cast<int>(s.lanes));
      std::vector<std::uint32_t>& on = sending[s.link];
      if (sign > 0) {
        on.push_back(i);
      } else {
        *std::find(on.begin(), on.end(), i) = on.back();
        on.pop_back();
      }
    }
    ++shares;
    for (const SharedLink& s : r.shared) {
      for (const std::uint32_t x : sending[s.link]) {
        if (x != i && rerated[x] != shares) {
          rerated[x] = shares;
          reschedule(x, now);
        }
      }
    }
  }

  // Connection i sends its next transfer from now. One that follows its previous transfer at
  // once on the same route keeps its place on the links: no time passes in between, so nobody
  // else's share changes.
  void send(std::uint32_t i, double now) {
    const Connection& c = sharing.connections_[i];
    const auto r = static_cast<std::uint32_t>(next[i] % static_cast<std::int64_t>(c.routes.size()));
    const double wire =
        std::ceil(static_cast<double>(bytes(i, next[i]).count) * sharing.wire_factor_);
    const bool stays = on_links[i] && route[i] == r && wire > 0.0;
    if (on_links[i] && !stays) {
      on_links[i] = 0;
      share(i, -1, now);
    }
    state[i] = State::kSending;
    route[i] = r;
    remaining[i] = wire;
    since[i] = now;
    if (wire > 0.0 && !stays) {
      on_links[i] = 1;
      share(i, +1, now);
    }
    rate[i] = wire > 0.0 ? rate_of(i) : kInfinity;
    events.set({wire > 0.0 ? now + wire / rate[i] : now, i});
    if (sharing.streams_) {
      // Its users may start forwarding once its first byte has crossed and been held.
      const double opened = now + c.routes[r].delay_s;
      for (const User& u : sharing.users_[i]) {
        sent[u.slot].emplace_back(next[i], opened);
        if (state[u.connection] == State::kBlocked) {
          advance(u.connection, now);
        }
      }
    }
  }

  void drained(std::uint32_t i, double now) {
    if (sharing.streams_) {
      unheld[i].emplace_back(next[i], now);
      hold_streamed(i, now);
    } else {
      hold(i, next[i], now + sharing.connections_[i].routes[route[i]].delay_s, now);
    }
    ++next[i];
    const Connection& c = sharing.connections_[i];
    if (c.post_s > 0.0 && next[i] % c.post_every == 0) {
      free[i] = now + c.post_s;
    }
    if (next[i] < c.transfers) {
      const std::optional<double> when_ready = ready(i);
      if (when_ready && *when_ready <= now && free[i] <= now) {
        send(i, now);
        return;
      }
    }
    if (on_links[i]) {
      on_links[i] = 0;
      share(i, -1, now);
    }
    advance(i, now);
  }
};

std::vector<double> SliceSharing::held_seconds(const std::vector<double>& floor,
                                               const TransferBytes& bytes) {
  if (!prepared_) {
    prepare();
  }
  Run run(*this, bytes, floor);
  run.run();
  return std::move(run.held);
}

}  // namespace railsim::models
