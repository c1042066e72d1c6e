// File: tests/models/collective/transfer_dag_test.cpp
// The chunk-accurate executor on a chain of hops worked by hand: store-and-forward (Simple)
// against streaming (LL, LL128), where each hop passes data on as it arrives.
#include "models/collective/transfer_dag.hpp"

#include "sim/simulator.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <span>

namespace railsim::models {
namespace {

// Three hops A -> B -> C -> D, each its own 10 GB/s link with 1 us of latency, each task held
// 2 us (NCCL's hop latency); one 1 MB message forwarded down the chain. Returns the time the
// last hop's data is held, in microseconds.
double chain_us(bool streams) {
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  TransferDag dag;
  for (int hop = 0; hop < 3; ++hop) {
    const sim::LinkId link = network.add_link({sim::gbytes_per_s(10.0), sim::us(1.0), "hop"});
    dag.paths.add(std::span(&link, 1));
    DagTask task;
    task.flows = {{.path = static_cast<std::uint32_t>(hop), .bytes = sim::bytes(1'000'000)}};
    task.hold = sim::us(2.0);
    task.streams = streams;
    if (hop > 0) {
      task.depends_on = {static_cast<std::uint32_t>(hop - 1)};
    }
    dag.tasks.push_back(task);
  }
  DagExecutor executor(network, simulator, dag);
  std::optional<sim::SimTime> end;
  executor.start(sim::Duration{}, [&](sim::SimTime t) { end = t; });
  while (simulator.step()) {
  }
  EXPECT_TRUE(end.has_value());
  return sim::to_seconds(*end - sim::SimTime{}) * 1e6;
}

TEST(TransferDag, StoreAndForwardPaysTheTransferOnEveryHop) {
  // Each hop: 100 us of transfer, 1 us of latency, 2 us held: 3 x 103 = 309 us.
  EXPECT_NEAR(chain_us(false), 309.0, 1e-3);
}

TEST(TransferDag, StreamingPaysTheTransferOnceAndEveryHopsLatency) {
  // B starts 3 us after A (first byte across and held), C 3 us after B; each moves its 1 MB in
  // 100 us, so D has its last byte at 6 + 100 + 1 = 107 us and holds it 2 us: 109 us.
  EXPECT_NEAR(chain_us(true), 109.0, 1e-3);
}

TEST(TransferDag, AWeightedFlowTakesAShareOfTheLinkPerFlowItStandsFor) {
  // A (1 MB, weight 3) and B (1 MB, weight 1) share a 10 GB/s link; C (1 MB) follows A on a link
  // of its own. A moves at 7.5 GB/s and ends at 133.3 us, C ends 100 us later: 233.3 us. (Weight
  // ignored, A and B would share the link evenly, A would end at 200 us and C at 300 us.)
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  TransferDag dag;
  const sim::LinkId shared = network.add_link({sim::gbytes_per_s(10.0), sim::Duration{}, "ab"});
  const sim::LinkId own = network.add_link({sim::gbytes_per_s(10.0), sim::Duration{}, "c"});
  dag.paths.add(std::span(&shared, 1));
  dag.paths.add(std::span(&own, 1));
  DagTask a;
  a.flows = {{.path = 0U, .weight = 3.0F, .bytes = sim::bytes(1'000'000)}};
  DagTask b;
  b.flows = {{.path = 0U, .bytes = sim::bytes(1'000'000)}};
  DagTask c;
  c.flows = {{.path = 1U, .bytes = sim::bytes(1'000'000)}};
  c.depends_on = {0U};
  dag.tasks = {a, b, c};
  DagExecutor executor(network, simulator, dag);
  std::optional<sim::SimTime> end;
  executor.start(sim::Duration{}, [&](sim::SimTime t) { end = t; });
  while (simulator.step()) {
  }
  ASSERT_TRUE(end.has_value());
  EXPECT_NEAR(sim::to_seconds(*end - sim::SimTime{}) * 1e6, 100.0 / 0.75 + 100.0, 1e-3);
}

}  // namespace
}  // namespace railsim::models
