// File: tests/calibrate/parse/topo_import_test.cpp
// The topology import against the real dumps of tests/data: the imported node's nvidia-smi
// matrix equals the hand transcription beside each dump cell by cell, with its CPU and NUMA
// affinity and NIC legend; NIC roles and link layers follow the rules of docs/topology-import.md
// (expected roles from the dumps' .json hardware notes and the raw ibdev2netdev text); matrices
// no PCIe tree gives fail at the cell that says so.
#include "calibrate/parse/topo_import.hpp"

#include "tests/calibrate/fixture.hpp"

#include "calibrate/parse/ibdev2netdev.hpp"
#include "calibrate/parse/nvidia_smi_topo.hpp"
#include "models/hardware/topo_matrix.hpp"
#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace railsim::calibrate::parse {
namespace {

using nlohmann::json;

TopoImport import_fixture(const std::string& stem, const Ibdev2netdevOutput* ports = nullptr) {
  const TextInput input = test::fixture_text(stem);
  return import_nvidia_smi_topo(parse_nvidia_smi_topo(input), input.name(), ports);
}

std::size_t position(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

class ImportedDump : public ::testing::TestWithParam<const char*> {};

// Every transcribed cell, in both halves (a truncated dump's missing rows are checked through
// the columns of the rows it has), the GPUs' affinity and the NIC names.
TEST_P(ImportedDump, ReproducesTheTranscribedMatrixAffinityAndNicLegend) {
  const TopoImport imported = import_fixture(GetParam());
  const models::TopoMatrix m = models::topo_matrix(imported.node);
  const json t = test::fixture_json(GetParam()).at("topology");
  const auto columns = t.at("columns").get<std::vector<std::string>>();
  ASSERT_EQ(m.columns.size(), columns.size());
  ASSERT_EQ(m.rows.size(), columns.size());
  for (const auto& [row, cells] : t.at("matrix").items()) {
    const std::size_t r = position(columns, row);
    for (const auto& [column, cell] : cells.items()) {
      const std::size_t c = position(columns, column);
      EXPECT_EQ(m.rows.at(r).cells.at(c), cell.get<std::string>()) << row << ", " << column;
      EXPECT_EQ(m.rows.at(c).cells.at(r), cell.get<std::string>()) << column << ", " << row;
    }
  }
  // Older transcriptions list each GPU's affinity cells in the dump's column order; newer ones
  // name the fields.
  const bool named = t.contains("affinity");
  const json& affinity = named ? t.at("affinity") : t.at("affinity_raw");
  ASSERT_FALSE(affinity.empty());
  const auto affinity_columns =
      named ? std::vector<std::string>{} : t.at("affinity_columns").get<std::vector<std::string>>();
  const auto field = [&](const json& values, const char* name, const char* column) {
    return (named ? values.at(name) : values.at(position(affinity_columns, column)))
        .get<std::string>();
  };
  for (const auto& [gpu, values] : affinity.items()) {
    const models::TopoMatrix::Row& row = m.rows.at(position(columns, gpu));
    EXPECT_EQ(row.cpu_affinity, field(values, "cpu_affinity", "CPU Affinity")) << gpu;
    EXPECT_EQ(row.numa_affinity, field(values, "numa_affinity", "NUMA Affinity")) << gpu;
  }
  const json legend = t.value("nic_legend", json::object());
  const std::size_t gpus = imported.node.gpus.size();
  ASSERT_EQ(m.nic_legend.size(), columns.size() - gpus);
  for (std::size_t n = 0; n < m.nic_legend.size(); ++n) {
    const std::string& column = columns[gpus + n];
    // Older releases name the NIC columns by their verbs devices and print no legend.
    EXPECT_EQ(m.nic_legend[n].second, legend.value(column, column)) << column;
  }
}

INSTANTIATE_TEST_SUITE_P(
    RealDumps,
    ImportedDump,
    ::testing::Values("topo_dgx-a100_nvidia-smi-topo-m_12nic",
                      "topo_hgx-h100_nvidia-smi-topo-m_12nic_mooncake-issue2039",
                      "topo_a100-pcie-nvlink-bridge_nvidia-smi-topo-m_nccl-tests-issue178",
                      "topo_gcp-a4-b200_nvidia-smi-topo-m_8nic_dranet"));

// The nccl#1264 excerpt (truncated after NIC2's row) shows SYS from GPU0 to NIC1, while GPU0 and
// GPU1 both print NUMA Affinity 0 and GPU1 is PIX to NIC1: SYS within one NUMA node, which a
// node whose SYS means "different NUMA nodes" cannot give. An error at GPU0's row.
TEST(TopoImport, SysInsideOneNumaNodeOfTheNccl1264DumpIsAnError) {
  const TextInput input =
      test::fixture_text("topo_hgx-h100_nvidia-smi-topo-m_10nic_nccl-issue1264");
  const NvidiaSmiTopo topo = parse_nvidia_smi_topo(input);
  EXPECT_TRUE(topo.truncated);
  EXPECT_TRUE(test::fails_at([&] { import_nvidia_smi_topo(topo, input.name()); }, input.name(), 3,
                             "GPU0, column NIC1: expected NODE or closer, as GPU0 (both NUMA "
                             "Affinity 0) GPU1 PIX NIC1 puts them on one NUMA node, got SYS"));
}

std::set<std::string> compute_nics(const models::NodeSpec& node) {
  std::set<std::string> names;
  for (const models::Nic& nic : node.nics) {
    if (nic.role == models::NicRole::kCompute) {
      names.insert(nic.name);
    }
  }
  return names;
}

// The .json notes: mlx5_0-3 and 6-9 are the compute HCAs (PXB to a GPU pair), 4/5 and 10/11
// storage pairs SYS to every GPU; NV12 on every pair. Of its 8 NUMA nodes the dump shows the 4
// with GPUs (3, 1, 7, 5) and the 2 holding only a storage pair; NUMA nodes without a device
// leave no trace in it.
TEST(TopoImport, DgxA100HasEightComputeHcasAndAnNvswitchOfTwelveLinks) {
  const models::NodeSpec node = import_fixture("topo_dgx-a100_nvidia-smi-topo-m_12nic").node;
  EXPECT_EQ(compute_nics(node), (std::set<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3",
                                                       "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9"}));
  EXPECT_EQ(node.nvlink.kind, models::NvlinkKind::kSwitch);
  EXPECT_EQ(node.nvlink.links_per_gpu, 12);
  EXPECT_EQ(node.numa_nodes.size(), 6u);
  EXPECT_EQ(node.sockets.size(), 2u);
  EXPECT_EQ(node.gpus.front().link.generation, 4);  // assumed from the dgx-a100 preset
}

// GPU i's own NIC is the one PIX to it alone or the first of three (mlx5_0 under GPU0, mlx5_6
// under GPU4, as in the DGX H100 user guide's numbering); mlx5_1/2 and 7/8 are storage.
TEST(TopoImport, HgxH100GivesEachGpuItsClosestNic) {
  const TopoImport imported =
      import_fixture("topo_hgx-h100_nvidia-smi-topo-m_12nic_mooncake-issue2039");
  const models::NodeSpec& node = imported.node;
  EXPECT_EQ(compute_nics(node), (std::set<std::string>{"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5",
                                                       "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"}));
  EXPECT_EQ(node.nvlink.kind, models::NvlinkKind::kSwitch);
  EXPECT_EQ(node.nvlink.links_per_gpu, 18);
  ASSERT_EQ(node.numa_nodes.size(), 2u);
  EXPECT_EQ(node.numa_nodes[0].cpus, "4,6,8,10,12");
  EXPECT_NE(node.numa_nodes[0].socket, node.numa_nodes[1].socket);
  EXPECT_FALSE(imported.assumed.empty());
}

// The GCP A4 dump is a B200 host, which NV18 alone would take for an H100 one: --like dgx-b200
// gives its GPUs, NVLink 5 (50 GB/s a link) and CPUs. Two GPUs share each pair of PIX NICs; all
// eight are compute NICs.
TEST(TopoImport, LikeNamesThePresetWhoseFiguresADumpTakes) {
  const TextInput input = test::fixture_text("topo_gcp-a4-b200_nvidia-smi-topo-m_8nic_dranet");
  const NvidiaSmiTopo topo = parse_nvidia_smi_topo(input);
  const models::NodeSpec h100 = import_nvidia_smi_topo(topo, input.name()).node;
  EXPECT_EQ(h100.gpus.front().model, "H100-SXM5-80GB (assumed)");
  const TopoImport b200 = import_nvidia_smi_topo(topo, input.name(), nullptr, "dgx-b200");
  const models::NodeSpec& node = b200.node;
  EXPECT_EQ(node.gpus.front().model, "B200-SXM-180GB (assumed)");
  EXPECT_DOUBLE_EQ(node.nvlink.link_rate.bytes_per_s, 50e9);
  EXPECT_EQ(node.nvlink.links_per_gpu, 18);
  EXPECT_EQ(node.sockets.front().model, "Intel Xeon Platinum 8570 (assumed)");
  EXPECT_EQ(compute_nics(node).size(), 8u);
  EXPECT_TRUE(std::any_of(b200.assumed.begin(), b200.assumed.end(), [](const std::string& a) {
    return a.find("as the dgx-b200 preset: given with --like") != std::string::npos;
  }));
  EXPECT_THROW(import_nvidia_smi_topo(topo, input.name(), nullptr, "dgx-b2000"), sim::InputError);
}

// Issue 178: NV12 on (0,1), (2,3), (4,5), (6,7) only, no NICs.
TEST(TopoImport, NvlinkOnSomePairsIsBridges) {
  const models::NodeSpec node =
      import_fixture("topo_a100-pcie-nvlink-bridge_nvidia-smi-topo-m_nccl-tests-issue178").node;
  EXPECT_EQ(node.nvlink.kind, models::NvlinkKind::kBridge);
  EXPECT_EQ(node.nvlink.links_per_gpu, 12);
  EXPECT_EQ(node.nvlink.bridged_pairs,
            (std::vector<std::pair<int, int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_TRUE(node.nics.empty());
}

// The raw ibdev2netdev text of cnode3-011: mlx5_1 and mlx5_2 are Down (Ethernet), mlx5_7 is an
// Up Ethernet port (enp170s0np0), the rest ib* (InfiniBand); mlx5_11 is not listed.
TEST(TopoImport, DownAndOtherLinkLayerNicsCarryNoCollectives) {
  const Ibdev2netdevOutput ports =
      parse_ibdev2netdev(test::fixture_text("ibdev2netdev_dgx-h100-cx7-ndr-ib_xxrjun-cnode3-011"));
  const TopoImport imported =
      import_fixture("topo_hgx-h100_nvidia-smi-topo-m_12nic_mooncake-issue2039", &ports);
  EXPECT_EQ(compute_nics(imported.node),
            (std::set<std::string>{"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9",
                                   "mlx5_10", "mlx5_11"}));
  for (const models::Nic& nic : imported.node.nics) {
    if (nic.role == models::NicRole::kCompute) {
      EXPECT_EQ(nic.transport, models::Transport::kInfiniband) << nic.name;
    }
    if (nic.name == "mlx5_7") {
      EXPECT_EQ(nic.transport, models::Transport::kRoce);
    }
  }
  const auto mentions = [&](const std::string& word) {
    return std::any_of(imported.notes.begin(), imported.notes.end(), [&](const std::string& note) {
      return note.find(word) != std::string::npos;
    });
  };
  EXPECT_TRUE(mentions("mlx5_11 is not in the ibdev2netdev listing"));
  EXPECT_TRUE(mentions("mlx5_1, mlx5_2"));
}

// The SGLang host's ports are all Ethernet (enp*, bond0): RoCE. mlx5_4 (GPU2's PIX NIC in the
// HGX layout) and mlx5_10 (GPU6's) are Down, so those GPUs take the next closest free NIC.
TEST(TopoImport, EthernetPortsMakeRoceComputeNics) {
  const Ibdev2netdevOutput ports =
      parse_ibdev2netdev(test::fixture_text("ibdev2netdev_h100-roce-12nic_sglang-notes-aihub0007"));
  const models::NodeSpec node =
      import_fixture("topo_hgx-h100_nvidia-smi-topo-m_12nic_mooncake-issue2039", &ports).node;
  const std::set<std::string> compute = compute_nics(node);
  EXPECT_EQ(compute.size(), 8u);
  EXPECT_EQ(compute.count("mlx5_4"), 0u);
  EXPECT_EQ(compute.count("mlx5_10"), 0u);
  for (const models::Nic& nic : node.nics) {
    EXPECT_EQ(nic.transport, models::Transport::kRoce) << nic.name;
  }
}

// Small matrices with one cell no PCIe tree gives, written as nvidia-smi prints them.
TopoImport import_text(const std::string& text) {
  const TextInput input("bad.txt", text);
  return import_nvidia_smi_topo(parse_nvidia_smi_topo(input), input.name());
}

constexpr const char* kHeader = "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\n";

// GPU0 and GPU1 are both directly below NIC0's switch, so they are PIX to each other, not NODE.
TEST(TopoImport, ClassesNoTreeGivesAreAnErrorAtTheCell) {
  const std::string text = std::string(kHeader) +
                           "GPU0\t X \tNODE\tPIX\t0-7\t0\n"
                           "GPU1\tNODE\t X \tPIX\t0-7\t0\n"
                           "NIC0\tPIX\tPIX\t X \n";
  EXPECT_TRUE(test::fails_at([&] { import_text(text); }, "bad.txt", 2,
                             "GPU0, column GPU1: expected PIX or closer, as GPU0 PIX NIC0 PIX "
                             "GPU1 puts them directly below one PCIe switch, got NODE"));
}

TEST(TopoImport, AnAsymmetricMatrixIsAnErrorAtTheSecondRow) {
  const std::string text = std::string(kHeader) +
                           "GPU0\t X \tNODE\tPIX\t0-7\t0\n"
                           "GPU1\tNODE\t X \tNODE\t0-7\t0\n"
                           "NIC0\tPIX\tPHB\t X \n";
  EXPECT_TRUE(test::fails_at([&] { import_text(text); }, "bad.txt", 4,
                             "NIC0, column GPU1: expected NODE, as row GPU1 has in column NIC0"));
}

// NODE means one NUMA node, which the affinity column contradicts.
TEST(TopoImport, NumaAffinityAgainstTheMatrixIsAnErrorAtTheGpuRow) {
  const std::string text = std::string(kHeader) +
                           "GPU0\t X \tNODE\tPIX\t0-7\t0\n"
                           "GPU1\tNODE\t X \tNODE\t8-15\t1\n"
                           "NIC0\tPIX\tNODE\t X \n";
  EXPECT_TRUE(
      test::fails_at([&] { import_text(text); }, "bad.txt", 3, "GPU1, NUMA Affinity: expected 0"));
}

// SYS means two NUMA nodes, but both GPUs print NUMA node 0.
TEST(TopoImport, SysBetweenGpusOfOneNumaNodeIsAnError) {
  const std::string text = std::string(kHeader) +
                           "GPU0\t X \tSYS\tPIX\t0-7\t0\n"
                           "GPU1\tSYS\t X \tSYS\t0-7\t0\n"
                           "NIC0\tPIX\tSYS\t X \n";
  EXPECT_TRUE(test::fails_at([&] { import_text(text); }, "bad.txt", 2,
                             "GPU0, column GPU1: expected NODE or closer"));
}

TEST(TopoImport, BridgesOfDifferentLinkCountsAreAnError) {
  const std::string text =
      "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tNV4\tSYS\tSYS\t0-7\t0\n"
      "GPU1\tNV4\t X \tSYS\tSYS\t0-7\t0\n"
      "GPU2\tSYS\tSYS\t X \tNV2\t8-15\t1\n"
      "GPU3\tSYS\tSYS\tNV2\t X \t8-15\t1\n";
  EXPECT_TRUE(test::fails_at([&] { import_text(text); }, "bad.txt", 4,
                             "GPU2, column GPU3: expected NV4 as GPU0 and GPU1 have"));
}

// The smallest tree for PXB: two PIX groups below a common switch; a lone device on its host
// bridge. Checked through the matrix the node gives back.
TEST(TopoImport, PxbGroupsShareATopSwitch) {
  const std::string text =
      "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tPXB\tPIX\tPHB\t0-7\t0\n"
      "GPU1\tPXB\t X \tPXB\tPHB\t0-7\t0\n"
      "NIC0\tPIX\tPXB\t X \tPHB\n"
      "NIC1\tPHB\tPHB\tPHB\t X \n";
  const models::NodeSpec node = import_text(text).node;
  EXPECT_EQ(node.host_bridges.size(), 1u);
  EXPECT_EQ(node.switches.size(), 3u);  // the top one, GPU0+NIC0's, GPU1's
  EXPECT_EQ(node.nics[1].parent.kind, models::PcieParent::Kind::kHostBridge);
  const models::TopoMatrix m = models::topo_matrix(node);
  EXPECT_EQ(m.rows[0].cells, (std::vector<std::string>{"X", "PXB", "PIX", "PHB"}));
  EXPECT_EQ(m.rows[1].cells, (std::vector<std::string>{"PXB", "X", "PXB", "PHB"}));
}

}  // namespace
}  // namespace railsim::calibrate::parse
