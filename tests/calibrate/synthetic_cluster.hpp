// File: tests/calibrate/synthetic_cluster.hpp
// Clusters made by the model itself, laid out as railsim check reads a directory: each node's
// nvidia-smi topo -m from its NodeSpec (a faulty node is a changed NodeSpec), its ibstat with
// every port Active at the NIC's rate unless the node trained it at another, its ibdev2netdev
// -v, and its lspci -vv with every GPU and NIC link trained at its designed generation and
// width unless the node trained it at another.
#pragma once

#include "models/hardware/node_spec.hpp"
#include "models/system/rdma_bench.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace railsim::calibrate::test {

struct SyntheticNode {
  std::string name;
  models::NodeSpec spec;
  std::map<std::string, double> trained_gbps;            // NIC name -> the rate its port trained at
  std::map<std::string, models::PcieLink> trained_pcie;  // "gpu3" or a NIC name -> its link
};

// `count` nodes "node00", "node01", ... of `spec`.
std::vector<SyntheticNode> healthy_nodes(const models::NodeSpec& spec, int count);

// ibstat's output for the node, in the layout of the real tool (tests/data/ibstat_*).
std::string ibstat_text(const SyntheticNode& node);

// ibdev2netdev -v's output for the node: every port ACTIVE and its netdev Up, at the PCI
// address lspci_text gives the NIC.
std::string ibdev2netdev_text(const SyntheticNode& node);

// lspci -vv's output for the node's GPUs and NICs (GPUs first, in bus order).
std::string lspci_text(const SyntheticNode& node);

// The cable between a node's NIC ("n3.mlx5_5") and its leaf at `scale` of its rate, both
// directions; found by the link names `railsim topo --links` prints.
models::SystemPreparation cable_at(const std::string& nic_end, double scale);

// perftest between node pairs: on every rail r, node i with node i+1 (mod the node count), so
// each node's NIC is in two pairs per test. Each pair's figure is the model's (rdma_bench.hpp,
// host buffers, with `faults` applied to the system); the files carry it times 1 + noise x a
// standard normal draw from `seed`.
struct RdmaPlan {
  bool latency = false;  // ib_write_lat at `size`, else ib_write_bw
  std::int64_t size = std::int64_t{8} << 20;
  std::int64_t iterations = 5000;
  models::SystemPreparation faults = {};
};

// Measurement noise: a figure times 1 + sigma x a standard normal draw, the draws in order
// from `seed`, so that a synthetic measurement set repeats.
class Noise {
 public:
  explicit Noise(std::uint64_t seed) : random_(seed) {}

  double operator()(double figure, double sigma) { return figure * (1.0 + sigma * draw_(random_)); }

 private:
  std::mt19937_64 random_;
  std::normal_distribution<double> draw_{0.0, 1.0};
};

struct ModelledPair {
  std::size_t a = 0;  // node indices
  std::size_t b = 0;
  std::string device;
  double figure = 0.0;  // GB/s or us
};

std::vector<ModelledPair> model_rdma_pairs(const models::SystemSpec& system,
                                           int nodes,
                                           const RdmaPlan& plan);

// Writes perftest/<a>__<b>__<test>__<device>.txt for each pair into `dir`.
void write_rdma_pairs(const std::string& dir,
                      const std::vector<SyntheticNode>& nodes,
                      const std::vector<ModelledPair>& pairs,
                      const RdmaPlan& plan,
                      double noise,
                      std::uint64_t seed);

// An nccl-tests all_reduce_perf log of one row: `hosts` x `gpus_per_node` ranks, `size` bytes
// in `time_us` (out-of-place and in-place alike), algbw and busbw by nccl-tests' formulas.
std::string all_reduce_log(const std::vector<std::string>& hosts,
                           int gpus_per_node,
                           std::int64_t size,
                           double time_us);

// A fresh, empty directory below the test's temporary directory, named after the running test.
std::filesystem::path scratch_dir();

// Writes `text` to `path`, making its directories.
void write_file(const std::filesystem::path& path, const std::string& text);

// scratch_dir() with topo/, ibstat/, ibdev2netdev/ and lspci/<node>.txt of every node. Returns
// its path.
std::string write_cluster(const std::vector<SyntheticNode>& nodes);

}  // namespace railsim::calibrate::test
