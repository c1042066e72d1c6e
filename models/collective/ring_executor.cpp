// File: models/collective/ring_executor.cpp
// The chunk-accurate and pipelined runs of a ring plan (see ring_executor.hpp for the model).
#include "models/collective/ring_executor.hpp"

#include "models/collective/pipeline_time.hpp"
#include "sim/assert.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace railsim::models {
namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

using Paths = std::vector<std::vector<sim::LinkId>>;

// Plans with up to this many slice transfers time their pipelines slice by slice (a few
// nanoseconds each); longer ones use the closed form.
constexpr std::int64_t kRecurrenceLimit = 20'000'000;

sim::Bytes on_wire(sim::Bytes payload, double wire_factor) {
  return sim::bytes(
      static_cast<std::int64_t>(std::ceil(static_cast<double>(payload.count) * wire_factor)));
}

// `total` split into `parts` whole-byte shares, the first ones a byte larger.
sim::Bytes share(sim::Bytes total, std::size_t parts, std::size_t index) {
  const auto n = static_cast<std::int64_t>(parts);
  return sim::bytes(total.count / n + (static_cast<std::int64_t>(index) < total.count % n ? 1 : 0));
}

}  // namespace

Paths hop_paths(const System& system,
                const Communicator& comm,
                const RingHop& hop,
                std::uint64_t queue_pair) {
  const int src_node = comm.node_of(hop.src);
  const int src_gpu = comm.gpu_of(hop.src);
  if (!hop.inter_node) {
    return {system.route_in_node(src_node, src_gpu, comm.gpu_of(hop.dst))};
  }
  const Endpoint src{src_node, hop.send_nic, hop.relay_gpu >= 0 ? hop.relay_gpu : src_gpu};
  const Endpoint dst{comm.node_of(hop.dst), hop.recv_nic, comm.gpu_of(hop.dst)};
  Paths paths = system.routes(src, dst, queue_pair);
  if (hop.relay_gpu >= 0) {
    // PXN: over NVLink to the GPU beside the NIC first.
    const std::vector<sim::LinkId> relay = system.route_in_node(src_node, src_gpu, hop.relay_gpu);
    for (auto& path : paths) {
      path.insert(path.begin(), relay.begin(), relay.end());
    }
  }
  return paths;
}

struct RingExecutor::Impl {
  const System& system;
  sim::FlowNetwork& net;
  sim::Simulator& sim;
  Communicator comm;
  RingPlan plan;
  RingLayout layout;
  RingTiming timing;
  std::function<void(sim::SimTime)> done;
  bool started = false;
  bool finished = false;
  sim::SimTime last_delivery;

  // Routes by (channel, hop, queue pair), each computed when first needed.
  std::vector<std::optional<Paths>> route_cache;

  // Chunk-accurate state, per transfer.
  std::vector<Transfer> transfers;
  std::vector<std::uint32_t> waiting;      // conditions still unmet: data, connection
  std::vector<std::int64_t> next_on_data;  // the transfer whose data this one carries
  std::vector<std::int64_t> next_on_connection;
  std::vector<std::uint32_t> message;         // index among its connection's transfers
  std::vector<std::uint32_t> flows_draining;  // of its flows
  std::vector<std::uint32_t> flows_arriving;
  std::size_t transfers_left = 0;

  std::size_t channels_left = 0;  // pipelined: channels not yet delivered

  Impl(const System& s,
       sim::FlowNetwork& n,
       sim::Simulator& si,
       Communicator c,
       RingPlan p,
       RingLayout l,
       RingTiming t)
      : system(s),
        net(n),
        sim(si),
        comm(c),
        plan(std::move(p)),
        layout(std::move(l)),
        timing(t),
        route_cache(at(plan.channels()) * at(plan.ranks) * at(qps())) {}

  int qps() const { return std::max(1, timing.qps_per_connection); }

  const Paths& paths(int channel, int hop, int qp) {
    const std::size_t key = (at(channel) * at(plan.ranks) + at(hop)) * at(qps()) + at(qp);
    if (!route_cache[key]) {
      route_cache[key] =
          hop_paths(system, comm, layout.hops[at(channel)][at(hop)],
                    static_cast<std::uint64_t>(channel) * static_cast<std::uint64_t>(qps()) +
                        static_cast<std::uint64_t>(qp));
    }
    return *route_cache[key];
  }

  sim::Duration hop_latency(int channel, int hop) const {
    return layout.hops[at(channel)][at(hop)].inter_node ? timing.inter_hop_latency
                                                        : timing.intra_hop_latency;
  }

  sim::Duration path_latency(const Paths& lanes) const {
    sim::Duration longest{};
    for (const auto& path : lanes) {
      sim::Duration sum{};
      for (const sim::LinkId link : path) {
        sum += net.link(link).latency;
      }
      longest = std::max(longest, sum);
    }
    return longest;
  }

  void delivered_at(sim::SimTime when) { last_delivery = std::max(last_delivery, when); }

  void finish() {
    finished = true;
    if (done) {
      done(last_delivery);
    }
  }

  // ---- chunk-accurate ----

  void start_chunks() {
    transfers = models::transfers(plan);
    const std::size_t count = transfers.size();
    waiting.assign(count, 0);
    next_on_data.assign(count, -1);
    next_on_connection.assign(count, -1);
    message.assign(count, 0);
    flows_draining.assign(count, 0);
    flows_arriving.assign(count, 0);
    std::vector<std::uint32_t> sent(at(plan.channels()) * at(plan.ranks), 0);
    for (std::size_t t = 0; t < count; ++t) {
      const Transfer& x = transfers[t];
      message[t] = sent[at(x.channel) * at(plan.ranks) + at(x.connection)]++;
      if (x.depends_on) {
        ++waiting[t];
        next_on_data[*x.depends_on] = static_cast<std::int64_t>(t);
      }
      if (x.after) {
        ++waiting[t];
        next_on_connection[*x.after] = static_cast<std::int64_t>(t);
      }
    }
    transfers_left = count;
    if (count == 0) {
      finish();
      return;
    }
    for (std::size_t t = 0; t < count; ++t) {
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
    const Transfer& x = transfers[t];
    const Paths& lanes = paths(x.channel, x.connection,
                               static_cast<int>(message[t] % static_cast<std::uint32_t>(qps())));
    const sim::Bytes wire = on_wire(x.bytes, timing.wire_factor);
    flows_draining[t] = flows_arriving[t] = static_cast<std::uint32_t>(lanes.size());
    const double cap =
        timing.connection_cap.bytes_per_s * timing.wire_factor / static_cast<double>(lanes.size());
    for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
      sim::FlowSpec flow;
      flow.path = lanes[lane];
      flow.size = share(wire, lanes.size(), lane);
      flow.rate_cap = sim::Bandwidth{cap};
      flow.on_drained = [this, t](const sim::FlowRecord&) {
        if (--flows_draining[t] == 0) {
          release(next_on_connection[t]);
        }
      };
      flow.on_complete = [this, t](const sim::FlowRecord& record) {
        if (--flows_arriving[t] == 0) {
          arrived(t, record.end);
        }
      };
      net.start_flow(std::move(flow));
    }
  }

  // The receiver holds the data one hop latency after it lands: then it forwards it, or, at
  // the end of the chain, has its result.
  void arrived(std::size_t t, sim::SimTime when) {
    const Transfer& x = transfers[t];
    const sim::Duration latency = hop_latency(x.channel, x.connection);
    delivered_at(when + latency);
    const std::int64_t next = next_on_data[t];
    if (next >= 0) {
      sim.schedule_after(latency, [this, next] { release(next); });
    }
    if (--transfers_left == 0) {
      finish();
    }
  }

  // ---- pipelined ----

  struct Channel {
    std::vector<Paths> paths;          // per connection: every path of its queue pairs and lanes
    std::vector<sim::Duration> delay;  // per connection: hop latency + its longest path's
    // Per connection: payload B/s with its links shared evenly among the collective's flows
    // that can send at once (all of them in a ring; in a chain, one position per channel).
    std::vector<double> static_rate;
    sim::Bytes most;           // the most payload one connection carries
    std::size_t draining = 0;  // member flows still draining
    sim::SimTime start;
  };

  std::vector<Channel> channels;

  void start_pipelined() {
    const int count = plan.channels();
    channels.resize(at(count));
    channels_left = at(count);
    if (plan.connections() == 0) {
      finish();
      return;
    }
    for (int c = 0; c < count; ++c) {
      lay_out_channel(c);
    }
    estimate_static_rates();
    for (int c = 0; c < count; ++c) {
      start_channel(c);
    }
  }

  // Every path of every hop, queue pairs first, lanes within: sub-pipeline j takes path
  // j mod (that hop's count) on each hop, so each path carries an equal share.
  void lay_out_channel(int c) {
    Channel& ch = channels[at(c)];
    const int connections = plan.connections();
    ch.paths.resize(at(connections));
    ch.delay.resize(at(connections));
    for (int p = 0; p < connections; ++p) {
      const int qp_count = layout.hops[at(c)][at(p)].inter_node ? qps() : 1;
      for (int q = 0; q < qp_count; ++q) {
        const Paths& lanes = paths(c, p, q);
        ch.paths[at(p)].insert(ch.paths[at(p)].end(), lanes.begin(), lanes.end());
        ch.delay[at(p)] = std::max(ch.delay[at(p)], hop_latency(c, p) + path_latency(lanes));
      }
    }
  }

  std::size_t sub_pipelines(const Channel& ch) const {
    std::size_t subs = 1;
    for (const Paths& lanes : ch.paths) {
      subs = std::max(subs, lanes.size());
    }
    return subs;
  }

  // What each connection moves while it sends if its links are shared evenly: the pace of the
  // hops that are not the pipeline's bottleneck, which run ahead while the pipeline fills. Every
  // connection of a ring sends from the first step on, so all of the collective's flows share.
  // A Broadcast chain fills from its first hop: a hop shares links only with the other
  // channels' hops at the same position.
  void estimate_static_rates() {
    const bool chain = plan.op == CollectiveOp::kBroadcast;
    const std::size_t classes = chain ? at(plan.connections()) : 1;
    // sharing[link x classes + class]: the member flows on the link that can send at once.
    std::vector<std::uint32_t> sharing(net.link_count() * classes, 0);
    const auto slot = [&](sim::LinkId link, std::size_t p) {
      return link.index * classes + (chain ? p : 0);
    };
    const auto each_member = [&](const auto& visit) {
      for (Channel& ch : channels) {
        const std::size_t subs = sub_pipelines(ch);
        for (std::size_t p = 0; p < ch.paths.size(); ++p) {
          for (std::size_t j = 0; j < subs; ++j) {
            visit(ch, p, ch.paths[p][j % ch.paths[p].size()]);
          }
        }
      }
    };
    each_member([&](Channel&, std::size_t p, const std::vector<sim::LinkId>& path) {
      for (const sim::LinkId link : path) {
        ++sharing[slot(link, p)];
      }
    });
    for (Channel& ch : channels) {
      ch.static_rate.assign(ch.paths.size(), 0.0);
    }
    each_member([&](Channel& ch, std::size_t p, const std::vector<sim::LinkId>& path) {
      double wire_rate = std::numeric_limits<double>::infinity();
      for (const sim::LinkId link : path) {
        wire_rate =
            std::min(wire_rate, net.link(link).capacity.bytes_per_s / sharing[slot(link, p)]);
      }
      ch.static_rate[p] += wire_rate / timing.wire_factor;
    });
    for (Channel& ch : channels) {
      for (double& rate : ch.static_rate) {
        rate = std::min(rate, timing.connection_cap.bytes_per_s);
      }
    }
  }

  void start_channel(int c) {
    Channel& ch = channels[at(c)];
    const RingPipeline pipe = pipeline(plan, c);
    ch.start = sim.now();
    ch.most = *std::max_element(pipe.connection_bytes.begin(), pipe.connection_bytes.end());
    const std::size_t subs = sub_pipelines(ch);
    const double cap =
        timing.connection_cap.bytes_per_s * timing.wire_factor / static_cast<double>(subs);
    for (std::size_t j = 0; j < subs; ++j) {
      const sim::GroupId group = net.create_group(1.0, sim::Bandwidth{cap});
      for (std::size_t p = 0; p < ch.paths.size(); ++p) {
        const sim::Bytes wire = on_wire(pipe.connection_bytes[p], timing.wire_factor);
        sim::FlowSpec flow;
        flow.path = ch.paths[p][j % ch.paths[p].size()];
        flow.size = share(wire, subs, j);
        flow.group = group;
        flow.on_drained = [this, c](const sim::FlowRecord&) { member_drained(c); };
        ++ch.draining;
        net.start_flow(std::move(flow));
      }
    }
  }

  void member_drained(int c) {
    Channel& ch = channels[at(c)];
    if (--ch.draining > 0) {
      return;
    }
    const sim::SimTime end = ch.start + sim::seconds(channel_seconds(c));
    sim.schedule_after(std::max(sim::Duration{}, end - sim.now()), [this] {
      delivered_at(sim.now());
      if (--channels_left == 0) {
        finish();
      }
    });
  }

  // The channel's time from its first send: the flow groups set the bottleneck's rate (with
  // whatever else shares its links), the other hops keep their even-share rate when that is
  // faster, and the pipeline's recurrence adds the fill and the stalls.
  double channel_seconds(int c) const {
    const Channel& ch = channels[at(c)];
    const double drain_s = sim::to_seconds(sim.now() - ch.start);
    const double group_rate = drain_s > 0.0 ? static_cast<double>(ch.most.count) / drain_s
                                            : std::numeric_limits<double>::infinity();
    std::vector<ConnectionPace> pace(ch.paths.size());
    for (std::size_t p = 0; p < pace.size(); ++p) {
      const double rate = std::max(group_rate, ch.static_rate[p]);
      pace[p].seconds_per_byte = std::isfinite(rate) ? 1.0 / rate : 0.0;
      pace[p].delay_s = sim::to_seconds(ch.delay[p]);
    }
    const double recurrence_s = plan.transfer_count() <= kRecurrenceLimit
                                    ? pipeline_seconds(plan, c, pace)
                                    : pipeline_seconds_closed_form(plan, c, pace);
    // The channels of a chain are at different positions at any time, so while one waits on
    // a hop the others use its links: the links' drain time, not the stalls, bounds it.
    return plan.op == CollectiveOp::kBroadcast
               ? std::max(recurrence_s, drain_s + pace.back().delay_s)
               : recurrence_s;
  }
};

RingExecutor::RingExecutor(const System& system,
                           sim::FlowNetwork& network,
                           sim::Simulator& simulator,
                           Communicator comm,
                           RingPlan plan,
                           RingLayout layout,
                           RingTiming timing)
    : impl_(std::make_unique<Impl>(
          system, network, simulator, comm, std::move(plan), std::move(layout), timing)) {}

RingExecutor::~RingExecutor() = default;

void RingExecutor::start(Execution execution, std::function<void(sim::SimTime)> done) {
  Impl& m = *impl_;
  RAILSIM_ASSERT(!m.started, "a ring run starts once");
  m.started = true;
  m.done = std::move(done);
  m.last_delivery = m.sim.now() + m.timing.base_latency;
  m.sim.schedule_after(m.timing.base_latency, [&m, execution] {
    if (execution == Execution::kChunk) {
      m.start_chunks();
    } else {
      m.start_pipelined();
    }
  });
}

bool RingExecutor::finished() const { return impl_->finished; }

}  // namespace railsim::models
