// File: models/system/rdma_bench.cpp
#include "models/system/rdma_bench.hpp"

#include "sim/simulator.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace railsim::models {
namespace {

// A fresh model of the system, prepared, for one measurement.
struct Bench {
  Bench(const SystemSpec& spec, const SystemPreparation& prepare) : system(spec, network) {
    if (prepare) {
      prepare(system, network);
    }
  }

  const Nic& nic(Endpoint end) const {
    const int index = system.compute_nics().at(static_cast<std::size_t>(end.nic));
    return system.node_spec(end.node).nics[static_cast<std::size_t>(index)];
  }

  sim::Simulator simulator;
  sim::FlowNetwork network{simulator};
  System system;
};

sim::Duration one_way(const SystemSpec& spec,
                      const SystemPreparation& prepare,
                      Endpoint from,
                      Endpoint to,
                      std::int64_t size,
                      std::int64_t inline_bytes) {
  Bench bench(spec, prepare);
  sim::FlowSpec message;
  message.path = bench.system.route(from, to);
  message.size = sim::bytes(size);
  sim::Duration delivered{};
  message.on_complete = [&delivered](const sim::FlowRecord& r) { delivered = r.end - r.start; };
  bench.network.start_flow(std::move(message));
  bench.simulator.run();
  const sim::Duration fetch =
      size > inline_bytes ? bench.nic(from).dma_read_latency : sim::Duration::zero();
  return delivered + fetch + bench.nic(from).processing_latency + bench.nic(to).processing_latency;
}

}  // namespace

RdmaStreamResult rdma_write_stream(const SystemSpec& spec,
                                   const SystemPreparation& prepare,
                                   Endpoint from,
                                   Endpoint to,
                                   std::int64_t size,
                                   std::int64_t iterations) {
  Bench bench(spec, prepare);
  const double message_rate = bench.nic(from).message_rate_per_qp;
  // The stream over each of the routing's paths in equal shares (one path unless adaptive).
  const std::vector<std::vector<sim::LinkId>> paths = bench.system.routes(from, to);
  const auto shares = static_cast<std::int64_t>(paths.size());
  sim::FlowRecord record;
  for (std::int64_t k = 0; k < shares; ++k) {
    sim::FlowSpec stream;
    stream.path = paths[static_cast<std::size_t>(k)];
    stream.size = sim::bytes((size * iterations + shares - 1 - k) / shares);
    stream.rate_cap =
        sim::bytes_per_s(static_cast<double>(size) * message_rate / static_cast<double>(shares));
    stream.on_complete = [&record](const sim::FlowRecord& r) {
      record.start = r.start;
      record.drained = std::max(record.drained, r.drained);
      record.end = std::max(record.end, r.end);
    };
    bench.network.start_flow(std::move(stream));
  }
  bench.simulator.run();
  const double total = static_cast<double>(size * iterations);
  const sim::Duration latency = record.end - record.drained;
  const double steady = total / sim::to_seconds(record.drained - record.start);
  return {size, iterations, steady, total / sim::to_seconds(record.end - record.start),
          sim::to_us(latency) + static_cast<double>(size) / steady * 1e6};
}

double rdma_write_latency_us(const SystemSpec& spec,
                             const SystemPreparation& prepare,
                             Endpoint from,
                             Endpoint to,
                             std::int64_t size,
                             std::int64_t inline_bytes) {
  const sim::Duration round_trip = one_way(spec, prepare, from, to, size, inline_bytes) +
                                   one_way(spec, prepare, to, from, size, inline_bytes);
  return sim::to_us(round_trip) / 2.0;
}

}  // namespace railsim::models
