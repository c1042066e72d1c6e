// File: tests/models/collective/nccl_tuning_testbed.hpp
// The topologies NCCL's tuning model is tested on (DGX H100 and A100, HGX B200, one H100 per
// node) and the small helpers the tuning and selection tests share.
#pragma once

#include "models/collective/nccl_tuning.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace railsim::models::testing {

inline constexpr double kTolerance = 1e-9;

inline const std::vector<Algorithm> all_algorithms(kAlgorithms.begin(), kAlgorithms.end());
inline const std::vector<Protocol> all_protocols(kProtocols.begin(), kProtocols.end());

// DGX H100: 8 x H100, 18 NVLinks x 20.6 = 370.8 GB/s through NVSwitch, 8 NDR NICs at 50 GB/s,
// Intel Xeon 8480C (nccl:src/graph/topo.h; DGX H100 User Guide). The TuningTopology defaults.
inline TuningTopology dgx_h100(int nodes) {
  TuningTopology topology;
  topology.nodes = nodes;
  return topology;
}

// DGX A100: 8 x A100, 12 x 20 = 240 GB/s through NVSwitch, 8 HDR NICs at 25 GB/s, AMD EPYC 7742.
inline TuningTopology dgx_a100(int nodes) {
  TuningTopology topology;
  topology.arch = GpuArch::kAmpere;
  topology.cpu = CpuVendor::kAmd;
  topology.nodes = nodes;
  topology.intra_bw_GBps = 240.0;
  topology.nic_bw_GBps = 25.0;
  return topology;
}

// HGX B200: 18 x 40.1 = 721.8 GB/s through NVSwitch.
inline TuningTopology hgx_b200(int nodes) {
  TuningTopology topology;
  topology.arch = GpuArch::kBlackwell;
  topology.nodes = nodes;
  topology.intra_bw_GBps = 721.8;
  return topology;
}

// One H100 per node with its own NDR NIC: the only layout where PAT is on by default.
inline TuningTopology one_h100_per_node(int nodes) {
  TuningTopology topology;
  topology.nodes = nodes;
  topology.gpus_per_node = 1;
  topology.nics_per_node = 1;
  return topology;
}

inline AlgoCost cost_of(const TuningTopology& topology,
                        CollectiveOp op,
                        Algorithm algorithm,
                        Protocol protocol) {
  const std::optional<AlgoCost> cost = algo_cost(topology, op, algorithm, protocol);
  EXPECT_TRUE(cost.has_value()) << algorithm_name(algorithm) << "/" << protocol_name(protocol);
  return cost.value_or(AlgoCost{});
}

inline AlgoChoice choice_at(const TuningTopology& topology,
                            CollectiveOp op,
                            double bytes,
                            const std::vector<Algorithm>& algorithms,
                            const std::vector<Protocol>& protocols = all_protocols) {
  const std::optional<AlgoChoice> choice =
      select_algorithm(topology, op, bytes, algorithms, protocols);
  EXPECT_TRUE(choice.has_value()) << bytes << " B";
  return choice.value_or(AlgoChoice{});
}

inline void expect_graph(const SearchGraph& graph, int channels, double bw_intra, double bw_inter) {
  EXPECT_EQ(graph.channels, channels);
  EXPECT_NEAR(graph.bw_intra_GBps, bw_intra, kTolerance);
  EXPECT_NEAR(graph.bw_inter_GBps, bw_inter, kTolerance);
}

}  // namespace railsim::models::testing
