// File: tests/calibrate/synthetic_cluster.cpp
#include "tests/calibrate/synthetic_cluster.hpp"

#include "calibrate/parse/nvidia_smi_topo.hpp"
#include "models/hardware/pcie.hpp"
#include "models/hardware/topo_matrix.hpp"
#include "sim/flow_network.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace railsim::calibrate::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRule =
    "---------------------------------------------------------------------------------------\n";

// A perftest run as ib_write_bw / ib_write_lat print it, with one row.
std::string perftest_text(const std::string& device, const RdmaPlan& plan, double value) {
  std::string text = kRule;
  text += plan.latency ? "                    RDMA_Write Latency Test\n"
                       : "                    RDMA_Write BW Test\n";
  text += fmt::format(
      " Dual-port       : OFF\t\tDevice         : {}\n"
      " Number of qps   : 1\t\tTransport type : IB\n"
      " Connection type : RC\t\tUsing SRQ      : OFF\n"
      " Mtu             : 4096[B]\n Link type       : IB\n Max inline data : {}[B]\n",
      device, plan.latency ? 220 : 0);
  text += kRule;
  if (plan.latency) {
    text += fmt::format(
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
        "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
        " {}       {}          {:.2f}           {:.2f}         {:.2f}     \t       {:.2f}        "
        "\t0.01   \t\t{:.2f}    \t\t{:.2f}   \n",
        plan.size, plan.iterations, value, value, value, value, value, value);
  } else {
    const double mib_per_s = value * 1e9 / (1 << 20);
    text += fmt::format(
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
        " {}    {}             {:.2f}            {:.2f}\t\t   {:.6f}\n",
        plan.size, plan.iterations, mib_per_s, mib_per_s,
        value * 1e9 / static_cast<double>(plan.size) * 1e-6);
  }
  return text + kRule;
}

}  // namespace

models::SystemPreparation cable_at(const std::string& nic_end, double scale) {
  return [nic_end, scale](models::System&, sim::FlowNetwork& network) {
    for (std::size_t i = 0; i < network.link_count(); ++i) {
      const sim::LinkId id{static_cast<std::uint32_t>(i)};
      const std::string_view name = network.link(id).name;  // "n3.mlx5_5>leaf5", "leaf5>n3.mlx5_5"
      if ((name.starts_with(nic_end + ">leaf")) ||
          (name.starts_with("leaf") && name.ends_with(">" + nic_end))) {
        network.set_link_capacity(id, network.link(id).capacity * scale);
      }
    }
  };
}

std::vector<ModelledPair> model_rdma_pairs(const models::SystemSpec& system,
                                           int nodes,
                                           const RdmaPlan& plan) {
  models::SystemSpec spec = system;
  spec.nodes = nodes;
  std::vector<ModelledPair> pairs;
  const std::vector<int> compute = models::compute_nic_indices(spec.node);
  for (int rail = 0; rail < static_cast<int>(compute.size()); ++rail) {
    const models::Nic& nic =
        spec.node.nics[static_cast<std::size_t>(compute[static_cast<std::size_t>(rail)])];
    for (int a = 0; a < (nodes == 2 ? 1 : nodes); ++a) {  // two nodes make one pair
      const int b = (a + 1) % nodes;
      const models::Endpoint from{a, rail, models::kHostMemory};
      const models::Endpoint to{b, rail, models::kHostMemory};
      const double figure =
          plan.latency
              ? models::rdma_write_latency_us(spec, plan.faults, from, to, plan.size)
              : models::rdma_write_stream(spec, plan.faults, from, to, plan.size, plan.iterations)
                        .average_bytes_per_s *
                    1e-9;
      pairs.push_back({static_cast<std::size_t>(a), static_cast<std::size_t>(b), nic.name, figure});
    }
  }
  return pairs;
}

void write_rdma_pairs(const std::string& dir,
                      const std::vector<SyntheticNode>& nodes,
                      const std::vector<ModelledPair>& pairs,
                      const RdmaPlan& plan,
                      double noise,
                      std::uint64_t seed) {
  Noise noisy(seed);
  for (const ModelledPair& p : pairs) {
    write_file(fs::path(dir) / "perftest" /
                   fmt::format("{}__{}__write_{}__{}.txt", nodes[p.a].name, nodes[p.b].name,
                               plan.latency ? "lat" : "bw", p.device),
               perftest_text(p.device, plan, noisy(p.figure, noise)));
  }
}

std::string all_reduce_log(const std::vector<std::string>& hosts,
                           int gpus_per_node,
                           std::int64_t size,
                           double time_us) {
  const int ranks = static_cast<int>(hosts.size()) * gpus_per_node;
  std::string text = fmt::format(
      "# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807\n"
      "# Collective test starting: all_reduce_perf\n"
      "# nThread 1 nGpus 1 minBytes {0} maxBytes {0} step: 2(factor) warmup iters: 5 iters: 20 "
      "agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n",
      size);
  for (int r = 0; r < ranks; ++r) {
    text += fmt::format(
        "#  Rank {:2} Group  0 Pid {} on {} device {:2} [0000:{:02x}:00] NVIDIA H100 "
        "80GB HBM3\n",
        r, 1000 + r, hosts[static_cast<std::size_t>(r / gpus_per_node)], r % gpus_per_node,
        16 + r % gpus_per_node);
  }
  // nccl-tests: algbw = S / t; AllReduce busbw = algbw x 2(n-1)/n.
  const double algbw = static_cast<double>(size) / (time_us * 1e3);
  const double busbw = algbw * 2.0 * (ranks - 1) / ranks;
  text += fmt::format(
      "#\n#                                                              out-of-place            "
      "           in-place          \n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     "
      "time   algbw   busbw  #wrong \n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             "
      "(us)  (GB/s)  (GB/s)         \n"
      "{:>12}  {:>12}     float     sum      -1  {:7.1f}  {:6.2f}  {:6.2f}       0  {:7.1f}  "
      "{:6.2f}  {:6.2f}       0\n"
      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : {:.4f} \n#\n"
      "# Collective test concluded: all_reduce_perf\n",
      size, size / 4, time_us, algbw, busbw, time_us, algbw, busbw, busbw);
  return text;
}

std::vector<SyntheticNode> healthy_nodes(const models::NodeSpec& spec, int count) {
  std::vector<SyntheticNode> nodes;
  for (int i = 0; i < count; ++i) {
    nodes.push_back({fmt::format("node{:02}", i), spec, {}, {}});
  }
  return nodes;
}

std::string ibstat_text(const SyntheticNode& node) {
  std::string text;
  for (std::size_t n = 0; n < node.spec.nics.size(); ++n) {
    const models::Nic& nic = node.spec.nics[n];
    const auto trained = node.trained_gbps.find(nic.name);
    const double rate =
        trained == node.trained_gbps.end() ? nic.port_rate.in_gbps() : trained->second;
    const bool ib = nic.transport == models::Transport::kInfiniband;
    text += fmt::format(
        "CA '{}'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.41.1000\n"
        "\tHardware version: 0\n\tNode GUID: 0x58a2e10300{:06x}\n"
        "\tSystem image GUID: 0x58a2e10300{:06x}\n\tPort 1:\n\t\tState: Active\n"
        "\t\tPhysical state: LinkUp\n\t\tRate: {:g}\n\t\tBase lid: {}\n\t\tLMC: 0\n"
        "\t\tSM lid: 1\n\t\tCapability mask: 0xa751e848\n\t\tPort GUID: 0x58a2e10300{:06x}\n"
        "\t\tLink layer: {}\n",
        nic.name, n, n, rate, ib ? n + 2 : 0, n, ib ? "InfiniBand" : "Ethernet");
  }
  return text;
}

namespace {

// Bus numbers: GPUs ascending from 0x10, so bus order is GPU order, as nvidia-smi has it; NICs
// from 0x90.
std::string gpu_address(std::size_t gpu) {
  return fmt::format("0000:{:02x}:00.0", 0x10 + 0x10 * gpu);
}

std::string nic_address(std::size_t nic) { return fmt::format("0000:{:02x}:00.0", 0x90 + 4 * nic); }

std::string lspci_block(const std::string& address,
                        const std::string& head,
                        models::PcieLink capable,
                        models::PcieLink trained) {
  const double cap = models::pcie_transfer_rate_gts(capable.generation);
  const double speed = models::pcie_transfer_rate_gts(trained.generation);
  return fmt::format(
      "{} {}\n\tSubsystem: Device 0000\n\tNUMA node: 0\n"
      "\tCapabilities: [60] Express (v2) Endpoint, MSI 00\n"
      "\t\tLnkCap:\tPort #0, Speed {:g}GT/s, Width x{}, ASPM not supported\n"
      "\t\tLnkSta:\tSpeed {:g}GT/s{}, Width x{}{}\n\n",
      address.substr(5), head, cap, capable.lanes, speed, speed < cap ? " (downgraded)" : " (ok)",
      trained.lanes, trained.lanes < capable.lanes ? " (downgraded)" : " (ok)");
}

}  // namespace

std::string ibdev2netdev_text(const SyntheticNode& node) {
  std::string text;
  for (std::size_t n = 0; n < node.spec.nics.size(); ++n) {
    text += fmt::format(
        "{} {} (MT4129 - MCX75310AAS-NEAT) ConnectX-7 fw 28.41.1000 port 1 (ACTIVE) ==> ib{} "
        "(Up)\n",
        nic_address(n), node.spec.nics[n].name, n);
  }
  return text;
}

std::string lspci_text(const SyntheticNode& node) {
  const auto trained = [&node](const std::string& element, models::PcieLink designed) {
    const auto it = node.trained_pcie.find(element);
    return it == node.trained_pcie.end() ? designed : it->second;
  };
  std::string text;
  for (std::size_t g = 0; g < node.spec.gpus.size(); ++g) {
    const models::PcieLink link = node.spec.gpus[g].link;
    text += lspci_block(gpu_address(g), "3D controller: NVIDIA Corporation GH100 (rev a1)", link,
                        trained(fmt::format("gpu{}", g), link));
  }
  for (std::size_t n = 0; n < node.spec.nics.size(); ++n) {
    const models::Nic& nic = node.spec.nics[n];
    text += lspci_block(nic_address(n),
                        "Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]",
                        nic.link, trained(nic.name, nic.link));
  }
  return text;
}

fs::path scratch_dir() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir =
      fs::path(::testing::TempDir()) / fmt::format("{}.{}", test->test_suite_name(), test->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string write_cluster(const std::vector<SyntheticNode>& nodes) {
  const fs::path dir = scratch_dir();
  for (const SyntheticNode& node : nodes) {
    write_file(dir / "topo" / (node.name + ".txt"),
               parse::nvidia_smi_topo_text(models::topo_matrix(node.spec)));
    write_file(dir / "ibstat" / (node.name + ".txt"), ibstat_text(node));
    write_file(dir / "ibdev2netdev" / (node.name + ".txt"), ibdev2netdev_text(node));
    write_file(dir / "lspci" / (node.name + ".txt"), lspci_text(node));
  }
  return dir.string();
}

}  // namespace railsim::calibrate::test
