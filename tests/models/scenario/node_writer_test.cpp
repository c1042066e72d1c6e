// File: tests/models/scenario/node_writer_test.cpp
// node_json against read_node_spec: every preset written out and read back is the same server,
// its nvidia-smi matrix cell by cell and the figures the matrix does not show.
#include "models/scenario/node_writer.hpp"

#include "models/hardware/node_presets.hpp"
#include "models/hardware/topo_matrix.hpp"
#include "models/scenario/json_reader.hpp"
#include "models/scenario/node_file.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace railsim::models::scenario {
namespace {

class NodeWriterRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(NodeWriterRoundTrip, ReadingTheWrittenPresetGivesItsTopoMatrix) {
  const NodeSpec preset = node_preset(GetParam());
  const JsonDocument doc = parse_json(node_json(preset).dump(2), "written.json");
  const NodeSpec read = read_node_spec(doc.root());
  const TopoMatrix expected = topo_matrix(preset);
  const TopoMatrix actual = topo_matrix(read);
  EXPECT_EQ(actual.columns, expected.columns);
  EXPECT_EQ(actual.nic_legend, expected.nic_legend);
  ASSERT_EQ(actual.rows.size(), expected.rows.size());
  for (std::size_t r = 0; r < expected.rows.size(); ++r) {
    SCOPED_TRACE(expected.rows[r].name);
    EXPECT_EQ(actual.rows[r].name, expected.rows[r].name);
    EXPECT_EQ(actual.rows[r].cells, expected.rows[r].cells);
    EXPECT_EQ(actual.rows[r].cpu_affinity, expected.rows[r].cpu_affinity);
    EXPECT_EQ(actual.rows[r].numa_affinity, expected.rows[r].numa_affinity);
  }
}

TEST_P(NodeWriterRoundTrip, ReadingTheWrittenPresetKeepsModelsRatesAndRoles) {
  const NodeSpec preset = node_preset(GetParam());
  const JsonDocument doc = parse_json(node_json(preset).dump(2), "written.json");
  const NodeSpec read = read_node_spec(doc.root());
  EXPECT_EQ(read.name, preset.name);
  ASSERT_EQ(read.sockets.size(), preset.sockets.size());
  EXPECT_EQ(read.sockets.front().model, preset.sockets.front().model);
  EXPECT_DOUBLE_EQ(read.sockets.front().memory_bandwidth.bytes_per_s,
                   preset.sockets.front().memory_bandwidth.bytes_per_s);
  EXPECT_DOUBLE_EQ(read.inter_socket.bytes_per_s, preset.inter_socket.bytes_per_s);
  ASSERT_EQ(read.switches.size(), preset.switches.size());
  for (std::size_t s = 0; s < preset.switches.size(); ++s) {
    EXPECT_EQ(read.switches[s].parent, preset.switches[s].parent);
    EXPECT_EQ(read.switches[s].uplink, preset.switches[s].uplink);
  }
  ASSERT_EQ(read.gpus.size(), preset.gpus.size());
  for (std::size_t g = 0; g < preset.gpus.size(); ++g) {
    EXPECT_EQ(read.gpus[g].model, preset.gpus[g].model);
    EXPECT_EQ(read.gpus[g].link, preset.gpus[g].link);
    EXPECT_EQ(read.gpus[g].c2c.has_value(), preset.gpus[g].c2c.has_value());
    if (preset.gpus[g].c2c) {
      EXPECT_DOUBLE_EQ(read.gpus[g].c2c->bytes_per_s, preset.gpus[g].c2c->bytes_per_s);
    }
  }
  EXPECT_EQ(read.trays, preset.trays);
  ASSERT_EQ(read.nics.size(), preset.nics.size());
  for (std::size_t n = 0; n < preset.nics.size(); ++n) {
    SCOPED_TRACE(preset.nics[n].name);
    EXPECT_EQ(read.nics[n].name, preset.nics[n].name);
    EXPECT_EQ(read.nics[n].model, preset.nics[n].model);
    EXPECT_EQ(read.nics[n].role, preset.nics[n].role);
    EXPECT_EQ(read.nics[n].link, preset.nics[n].link);
    EXPECT_DOUBLE_EQ(read.nics[n].port_rate.bytes_per_s, preset.nics[n].port_rate.bytes_per_s);
    EXPECT_EQ(read.nics[n].gdr_capable, preset.nics[n].gdr_capable);
    EXPECT_DOUBLE_EQ(read.nics[n].message_rate_per_qp, preset.nics[n].message_rate_per_qp);
    EXPECT_EQ(read.nics[n].processing_latency, preset.nics[n].processing_latency);
    EXPECT_EQ(read.nics[n].dma_read_latency, preset.nics[n].dma_read_latency);
  }
  EXPECT_EQ(read.nvlink.kind, preset.nvlink.kind);
  EXPECT_EQ(read.nvlink.links_per_gpu, preset.nvlink.links_per_gpu);
  EXPECT_EQ(read.nvlink.switch_count, preset.nvlink.switch_count);
  EXPECT_EQ(read.nvlink.bridged_pairs, preset.nvlink.bridged_pairs);
  EXPECT_DOUBLE_EQ(read.nvlink.link_rate.bytes_per_s, preset.nvlink.link_rate.bytes_per_s);
  EXPECT_DOUBLE_EQ(read.nvlink.efficiency, preset.nvlink.efficiency);
}

INSTANTIATE_TEST_SUITE_P(EveryPreset,
                         NodeWriterRoundTrip,
                         ::testing::ValuesIn(node_preset_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& c : name) {
                             c = c == '-' ? '_' : c;
                           }
                           return name;
                         });

}  // namespace
}  // namespace railsim::models::scenario
