// File: tests/calibrate/parse/cluster_evidence_test.cpp
// The inputs of railsim check: both layouts read the same logs, and each way the inputs
// themselves are wrong is one error naming the file (and the manifest's JSON pointer).
#include "calibrate/parse/cluster_evidence.hpp"

#include "tests/calibrate/synthetic_cluster.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

namespace railsim::calibrate::parse {
namespace {

namespace fs = std::filesystem;

const fs::path kData = RAILSIM_TEST_DATA_DIR;

using test::scratch_dir;
using test::write_file;

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Lines 1-68 of the CX-6 sweep: its ib_write_bw run alone, as one test's log.
std::string write_bw_log() {
  std::istringstream in(
      read(kData / "perftest_write-bw-sweep+write-lat-sweep_cx6-hdr_2node_node0-node1.txt"));
  std::string text;
  std::string line;
  for (int n = 1; n <= 68 && std::getline(in, line); ++n) {
    text += line + "\n";
  }
  return text;
}

const std::string kTopo = "topo_dgx-a100_nvidia-smi-topo-m_12nic.txt";
const std::string kIbstat = "ibstat_cx7-ndr-ib+cx6dx-eth_mooncake-issue2039.txt";

::testing::AssertionResult fails_with(const std::string& path, const std::string& fragment) {
  try {
    read_cluster_evidence(path);
  } catch (const sim::InputError& e) {
    if (std::string(e.what()).find(fragment) != std::string::npos) {
      return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "the message was: " << e.what();
  }
  return ::testing::AssertionFailure() << "no error";
}

TEST(ClusterEvidence, DirectoryAndManifestReadTheSameLogs) {
  const fs::path dir = scratch_dir();
  write_file(dir / "topo" / "a.txt", read(kData / kTopo));
  write_file(dir / "ibstat" / "a.txt", read(kData / kIbstat));
  write_file(dir / "perftest" / "a__b__write_bw.txt", write_bw_log());
  const ClusterEvidence from_dir = read_cluster_evidence(dir.string());
  write_file(dir / "manifest.json",
             R"({"nodes": ["a", "b"], "topo": {"a": "topo/a.txt"}, "ibstat": {"a": "ibstat/a.txt"},
            "perftest": [{"nodes": ["a", "b"], "file": "perftest/a__b__write_bw.txt"}]})");
  const ClusterEvidence from_manifest = read_cluster_evidence((dir / "manifest.json").string());
  for (const ClusterEvidence* e : {&from_dir, &from_manifest}) {
    ASSERT_EQ(e->nodes.size(), 2U);
    EXPECT_EQ(e->nodes[0].name, "a");
    EXPECT_EQ(e->nodes[1].name, "b");
    ASSERT_TRUE(e->nodes[0].topo.has_value());
    EXPECT_EQ(e->nodes[0].topo->output.devices.size(), 20U);  // 8 GPUs, 12 NICs
    ASSERT_TRUE(e->nodes[0].ibstat.has_value());
    ASSERT_EQ(e->pairs.size(), 1U);
    EXPECT_EQ(e->pairs[0].test, "write_bw");
  }
}

TEST(ClusterEvidence, MissingFileIsNamedAtItsPointer) {
  const fs::path dir = scratch_dir();
  write_file(dir / "manifest.json", R"({"nodes": ["a"], "topo": {"a": "topo/a.txt"}})");
  EXPECT_TRUE(fails_with((dir / "manifest.json").string(),
                         "/topo/a: " + (dir / "topo/a.txt").string() + ": no such file"));
}

TEST(ClusterEvidence, NodeWithNoLogsIsAnError) {
  const fs::path dir = scratch_dir();
  write_file(dir / "topo" / "a.txt", read(kData / kTopo));
  write_file(dir / "manifest.json", R"({"nodes": ["a", "b"], "topo": {"a": "topo/a.txt"}})");
  EXPECT_TRUE(fails_with((dir / "manifest.json").string(), "/nodes/1: node 'b' has no logs"));
}

TEST(ClusterEvidence, LogOfTheWrongToolIsNamed) {
  const fs::path dir = scratch_dir();
  write_file(dir / "topo" / "a.txt", read(kData / kIbstat));
  EXPECT_TRUE(
      fails_with(dir.string(), (dir / "topo" / "a.txt").string() +
                                   ": this is ibstat output, expected nvidia-smi-topo output"));
}

TEST(ClusterEvidence, TwoLogsForOnePairAreAnError) {
  const fs::path dir = scratch_dir();
  write_file(dir / "perftest" / "a__b__write_bw.txt", write_bw_log());
  write_file(dir / "perftest" / "b__a__write_bw.txt", write_bw_log());
  EXPECT_TRUE(
      fails_with(dir.string(), (dir / "perftest" / "b__a__write_bw.txt").string() +
                                   ": a second write_bw log on mlx5_0 for b and a (the first is "));
}

TEST(ClusterEvidence, FileNameThatDisagreesWithItsLogIsAnError) {
  const fs::path dir = scratch_dir();
  write_file(dir / "perftest" / "a__b__write_lat.txt", write_bw_log());
  EXPECT_TRUE(fails_with(dir.string(), "the name says write_lat, the log holds write_bw"));
}

TEST(ClusterEvidence, NcclRanksOnUnlistedNodeAreAnError) {
  const fs::path dir = scratch_dir();
  write_file(
      dir / "nccl.txt",
      read(kData /
           "nccl-tests_alltoall+sendrecv_h100_2node-8gpn_xxrjun-cluster00-healthy-pair.txt"));
  write_file(dir / "manifest.json", R"({"nodes": ["cnode2-001"], "nccl": [{"file": "nccl.txt"}]})");
  EXPECT_TRUE(fails_with((dir / "manifest.json").string(),
                         "/nccl/0/file: " + (dir / "nccl.txt").string() +
                             ": the log has ranks on 'cnode2-002', which is not in /nodes"));
}

TEST(ClusterEvidence, EmptyDirectoryIsAnError) {
  EXPECT_TRUE(fails_with(scratch_dir().string(), "no logs found"));
  EXPECT_TRUE(fails_with((scratch_dir() / "absent").string(), "no such directory"));
}

}  // namespace
}  // namespace railsim::calibrate::parse
