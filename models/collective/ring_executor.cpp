// File: models/collective/ring_executor.cpp
// The chunk-accurate and pipelined runs of a ring plan (see ring_executor.hpp for the model).
#include "models/collective/ring_executor.hpp"

#include "sim/assert.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace railsim::models {
namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

using Paths = std::vector<std::vector<sim::LinkId>>;

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
    RingPipeline pipe;
    std::vector<sim::Duration> delay;  // per connection: hop latency + its longest path's
    std::size_t draining = 0;          // member flows still draining
    sim::SimTime start;
    sim::SimTime drained;
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
      start_channel(c);
    }
  }

  void start_channel(int c) {
    Channel& ch = channels[at(c)];
    ch.pipe = pipeline(plan, c);
    ch.start = sim.now();
    const int connections = plan.connections();
    // Every path of every hop, queue pairs first, lanes within: sub-pipeline j takes path
    // j mod (that hop's count) on each hop, so each path carries an equal share.
    std::vector<Paths> flat(at(connections));
    std::size_t subs = 1;
    ch.delay.resize(at(connections));
    for (int p = 0; p < connections; ++p) {
      const int qp_count = layout.hops[at(c)][at(p)].inter_node ? qps() : 1;
      for (int q = 0; q < qp_count; ++q) {
        const Paths& lanes = paths(c, p, q);
        flat[at(p)].insert(flat[at(p)].end(), lanes.begin(), lanes.end());
        ch.delay[at(p)] = std::max(ch.delay[at(p)], hop_latency(c, p) + path_latency(lanes));
      }
      subs = std::max(subs, flat[at(p)].size());
    }
    const double cap =
        timing.connection_cap.bytes_per_s * timing.wire_factor / static_cast<double>(subs);
    for (std::size_t j = 0; j < subs; ++j) {
      const sim::GroupId group = net.create_group(1.0, sim::Bandwidth{cap});
      for (int p = 0; p < connections; ++p) {
        const sim::Bytes wire = on_wire(ch.pipe.connection_bytes[at(p)], timing.wire_factor);
        sim::FlowSpec flow;
        flow.path = flat[at(p)][j % flat[at(p)].size()];
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
    ch.drained = sim.now();
    const sim::Duration tail = fill_and_stall(ch);
    sim.schedule_after(tail, [this] {
      delivered_at(sim.now());
      if (--channels_left == 0) {
        finish();
      }
    });
  }

  // What the pipeline adds to its drain time (see the header): the stalls of every loop, or
  // of the Broadcast chain, and the delay of the last hop.
  sim::Duration fill_and_stall(const Channel& ch) const {
    const RingPipeline& pipe = ch.pipe;
    const double drain_s = sim::to_seconds(ch.drained - ch.start);
    sim::Bytes most;
    for (const sim::Bytes bytes : pipe.connection_bytes) {
      most = std::max(most, bytes);
    }
    // The connection's payload rate; no data moved means no slice time.
    const double rate = drain_s > 0.0 ? static_cast<double>(most.count) / drain_s : 0.0;
    const auto slice_s = [&](sim::Bytes slice) {
      return rate > 0.0 ? static_cast<double>(slice.count) / rate : 0.0;
    };
    const double full =
        slice_s(sim::bytes((plan.chunking.chunk.count + pipe.slices - 1) / pipe.slices));
    const double last = slice_s(pipe.last_loop_slice);
    const std::size_t n = ch.delay.size();
    const auto delay_s = [&](std::size_t p) { return sim::to_seconds(ch.delay[p % n]); };
    if (plan.op == CollectiveOp::kBroadcast) {
      const double first = pipe.loops > 1 ? full : last;
      double stall = 0.0;
      for (std::size_t p = 0; p + 1 < n; ++p) {
        stall += first + delay_s(p);
      }
      return sim::seconds(stall) + ch.delay[n - 1];
    }
    const auto loop_stall = [&](double tau) {
      // The worst run of S-1 consecutive hops, over every starting position.
      const double k = pipe.slices;
      const auto extra = [&](std::size_t p) { return std::max(0.0, tau + delay_s(p) - k * tau); };
      const auto length = static_cast<std::size_t>(pipe.steps - 1);
      double window = 0.0;
      for (std::size_t s = 0; s < length; ++s) {
        window += extra(s);
      }
      double worst = window;
      for (std::size_t p0 = 1; p0 < n; ++p0) {
        window += extra(p0 + length - 1) - extra(p0 - 1);
        worst = std::max(worst, window);
      }
      return worst;
    };
    const double stall = static_cast<double>(pipe.loops - 1) * loop_stall(full) + loop_stall(last);
    return sim::seconds(stall) + *std::max_element(ch.delay.begin(), ch.delay.end());
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
