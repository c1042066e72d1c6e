// File: tests/models/collective/group_pipeline_test.cpp
// The pipelined executor's flows against drain times worked by hand: members of a group that
// move the same bytes over distinct links run as one flow, with the rates a flow per member has.
#include "models/collective/group_pipeline.hpp"

#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace railsim::models {
namespace {

constexpr double kGBps = 1e9;

struct Bench {
  sim::Simulator simulator;
  sim::FlowNetwork network{simulator};
  std::vector<sim::LinkId> links;

  explicit Bench(int count) {
    for (int i = 0; i < count; ++i) {
      links.push_back(network.add_link({sim::Bandwidth{kGBps}, sim::Duration{}, "l"}));
    }
  }

  // One channel of one group whose members take these paths (link indices) and bytes; the
  // channel's time is its drain. Returns (flows draining just after the start, the end in s).
  std::pair<std::size_t, double> run(const std::vector<std::vector<int>>& member_links,
                                     const std::vector<std::int64_t>& bytes) {
    GroupPipeline pipeline;
    PipelineGroup group;
    for (std::size_t m = 0; m < member_links.size(); ++m) {
      std::vector<sim::LinkId> path;
      for (const int l : member_links[m]) {
        path.push_back(links[static_cast<std::size_t>(l)]);
      }
      pipeline.paths.add(path);
      group.members.push_back(
          {.path = static_cast<std::uint32_t>(m), .bytes = sim::bytes(bytes[m])});
    }
    pipeline.channels = {{group}};
    pipeline.channel_times = [](const std::vector<sim::Duration>& drains) { return drains; };
    GroupPipelineExecutor executor(network, simulator, std::move(pipeline));
    std::optional<sim::SimTime> end;
    executor.start(sim::Duration{}, [&](sim::SimTime t) { end = t; });
    simulator.step();  // the start
    const std::size_t flows = network.draining_flow_count();
    simulator.run();
    EXPECT_TRUE(end.has_value());
    return {flows, sim::to_seconds(*end - sim::kTimeZero)};
  }
};

TEST(GroupPipeline, MembersOnDistinctLinksMovingTheSameBytesAreOneFlow) {
  // 1,000 members, each 1 GB over a 1 GB/s link of its own: one flow, done in 1 s.
  Bench bench(1000);
  std::vector<std::vector<int>> paths(1000);
  for (int i = 0; i < 1000; ++i) {
    paths[static_cast<std::size_t>(i)] = {i};
  }
  const auto [flows, seconds] = bench.run(paths, std::vector<std::int64_t>(1000, 1'000'000'000));
  EXPECT_EQ(flows, 1U);
  EXPECT_NEAR(seconds, 1.0, 1e-9);
}

TEST(GroupPipeline, MembersSharingALinkStaySeparateAndShareIt) {
  // Members over {0, 1} and {1, 2}: link 1 carries both at the group's common rate r, so
  // 2r = 1 GB/s and 1 GB each takes 2 s. Two flows: one bundle cannot cross link 1 twice.
  Bench bench(3);
  const auto [flows, seconds] = bench.run({{0, 1}, {1, 2}}, {1'000'000'000, 1'000'000'000});
  EXPECT_EQ(flows, 2U);
  EXPECT_NEAR(seconds, 2.0, 1e-9);
}

TEST(GroupPipeline, MembersMovingDifferentBytesDrainApart) {
  // 1 GB and 3 GB over links of their own at the common 1 GB/s: the group is done at 3 s, and a
  // third member of 1 GB on a link of its own joins the first's flow.
  Bench bench(3);
  const auto [flows, seconds] =
      bench.run({{0}, {1}, {2}}, {1'000'000'000, 3'000'000'000, 1'000'000'000});
  EXPECT_EQ(flows, 2U);
  EXPECT_NEAR(seconds, 3.0, 1e-9);
}

}  // namespace
}  // namespace railsim::models
