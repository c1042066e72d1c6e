// File: tests/tools/topo/topo_command_test.cpp
// `railsim topo` prints, for each preset, the matrix of the real `nvidia-smi topo -m` dump of
// that hardware (tests/data): the printed text is parsed back and compared cell by cell with
// the hand-transcribed dump, NICs matched by their verbs device name (mlx5_N).
#include "sim/input_error.hpp"
#include "tools/command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(' ');
  const auto last = s.find_last_not_of(' ');
  return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, '\t')) {
    fields.push_back(trim(field));
  }
  return fields;
}

// The printed matrix keyed by device (GPUk, or the NIC's mlx5 name), with affinity per GPU.
struct Printed {
  std::map<std::string, std::map<std::string, std::string>> cells;
  std::map<std::string, std::pair<std::string, std::string>> affinity;
};

Printed run_and_parse(const std::string& preset) {
  std::ostringstream out;
  EXPECT_EQ(run_topo({"--system", preset}, out), 0);
  std::istringstream text(out.str());
  std::string line;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::map<std::string, std::string> legend;  // NIC3 -> mlx5_3
  while (std::getline(text, line)) {
    if (line.rfind("\tGPU0", 0) == 0) {
      columns = split_tabs(line.substr(1));
    } else if (!columns.empty() && (line.rfind("GPU", 0) == 0 || line.rfind("NIC", 0) == 0) &&
               line.find('\t') != std::string::npos) {
      rows.push_back(split_tabs(line));
    } else if (line.rfind("  NIC", 0) == 0) {
      const auto colon = line.find(':');
      legend[trim(line.substr(0, colon))] = trim(line.substr(colon + 1));
    }
  }
  auto device = [&](const std::string& column) {
    return legend.count(column) ? legend.at(column) : column;
  };
  Printed printed;
  for (const std::vector<std::string>& row : rows) {
    for (std::size_t c = 0; c + 1 < row.size() && c < columns.size(); ++c) {
      if (columns[c] == "CPU Affinity") {
        printed.affinity[row[0]] = {row[c + 1], row[c + 2]};
        break;
      }
      printed.cells[device(row[0])][device(columns[c])] = row[c + 1];
    }
  }
  return printed;
}

nlohmann::json load_fixture(const std::string& stem) {
  std::ifstream in(std::string(RAILSIM_TEST_DATA_DIR) + "/" + stem + ".json");
  EXPECT_TRUE(in.good()) << stem;
  return nlohmann::json::parse(in);
}

// Compares every cell of the dump (rows and columns it has) with the printed matrix.
void expect_matches_dump(const std::string& preset, const std::string& stem, bool check_cpus) {
  const Printed printed = run_and_parse(preset);
  const nlohmann::json dump = load_fixture(stem)["topology"];
  const nlohmann::json& legend = dump["nic_legend"];
  auto device = [&](const std::string& name) {
    return legend.contains(name) ? legend[name].get<std::string>() : name;
  };
  int compared = 0;
  for (const auto& [row_name, row] : dump["matrix"].items()) {
    for (const auto& [column_name, expected] : row.items()) {
      const std::string r = device(row_name);
      const std::string c = device(column_name);
      ASSERT_TRUE(printed.cells.count(r) && printed.cells.at(r).count(c))
          << preset << " prints no cell " << r << " x " << c;
      EXPECT_EQ(printed.cells.at(r).at(c), expected.get<std::string>())
          << preset << ": " << r << " x " << c;
      ++compared;
    }
  }
  EXPECT_GE(compared, 64);
  // Older fixtures transcribe each GPU's affinity as [cpus, numa]; newer ones name the fields.
  const bool named = dump.contains("affinity");
  const nlohmann::json& affinity = named ? dump["affinity"] : dump["affinity_raw"];
  ASSERT_FALSE(affinity.empty()) << stem << " transcribes no affinity";
  for (const auto& [gpu, values] : affinity.items()) {
    ASSERT_TRUE(printed.affinity.count(gpu)) << gpu;
    const std::string cpus = (named ? values["cpu_affinity"] : values[0]).get<std::string>();
    const std::string numa = (named ? values["numa_affinity"] : values[1]).get<std::string>();
    if (check_cpus) {
      EXPECT_EQ(printed.affinity.at(gpu).first, cpus) << gpu;
    }
    EXPECT_EQ(printed.affinity.at(gpu).second, numa) << gpu;
  }
}

TEST(TopoCommand, DgxA100MatchesTheRealDumpCellByCell) {
  expect_matches_dump("dgx-a100", "topo_dgx-a100_nvidia-smi-topo-m_12nic", true);
}

TEST(TopoCommand, DgxH100MatchesTheHgxH100DumpCellByCell) {
  // The dump's CPU lists are a container's cpuset ("4,6,8,10,12"), so only NUMA is compared.
  expect_matches_dump("dgx-h100", "topo_hgx-h100_nvidia-smi-topo-m_12nic_mooncake-issue2039",
                      false);
}

TEST(TopoCommand, DgxB200MatchesTheGcpA4B200DumpCellByCell) {
  expect_matches_dump("dgx-b200", "topo_gcp-a4-b200_nvidia-smi-topo-m_8nic_dranet", true);
}

TEST(TopoCommand, PcieServerMatchesTheNvlinkBridgeDump) {
  expect_matches_dump("a100-pcie-nvlink-bridge",
                      "topo_a100-pcie-nvlink-bridge_nvidia-smi-topo-m_nccl-tests-issue178", true);
}

TEST(TopoCommand, JsonFormatCarriesTheSameMatrix) {
  std::ostringstream out;
  ASSERT_EQ(run_topo({"--system", "dgx-h100", "--format", "json"}, out), 0);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["system"], "dgx-h100");
  EXPECT_EQ(doc["matrix"]["GPU3"]["NIC5"], "PIX");
  EXPECT_EQ(doc["nic_legend"]["NIC5"], "mlx5_5");
  EXPECT_EQ(doc["affinity"]["GPU5"]["numa_affinity"], "1");
}

TEST(TopoCommand, UnknownPresetOrFormatIsBadInput) {
  std::ostringstream out;
  EXPECT_THROW(run_topo({"--system", "dgx-h10"}, out), sim::InputError);
  EXPECT_THROW(run_topo({"--system", "dgx-h100", "--format", "xml"}, out), sim::InputError);
}

}  // namespace
}  // namespace railsim::tools
