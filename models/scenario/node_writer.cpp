// File: models/scenario/node_writer.cpp
// Each section in the order and spelling node_file.cpp reads it; references as the reader wants
// them (parents "hb0"/"sw2", sockets and GPUs by position, NUMA nodes by id).
#include "models/scenario/node_writer.hpp"

#include "sim/assert.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace railsim::models::scenario {
namespace {

using Json = nlohmann::ordered_json;

// fmt's "{}" of a double is its shortest round-trip form: "25", "307.2".
std::string in_gbytes(sim::Bandwidth rate) { return fmt::format("{}GB/s", rate.bytes_per_s / 1e9); }

std::string in_gbits(sim::Bandwidth rate) {
  return fmt::format("{}Gbps", rate.bytes_per_s * 8.0 / 1e9);
}

std::string in_ps(sim::Duration duration) { return fmt::format("{}ps", duration.count()); }

Json link_json(PcieLink link) {
  return Json{{"generation", link.generation}, {"lanes", link.lanes}};
}

Json nvlink_json(const NvlinkDomain& nvlink) {
  switch (nvlink.kind) {
    case NvlinkKind::kNone:
      return Json{{"kind", "none"}};
    case NvlinkKind::kSwitch:
      return Json{{"kind", "switch"},
                  {"links_per_gpu", nvlink.links_per_gpu},
                  {"link_rate", in_gbytes(nvlink.link_rate)},
                  {"switch_count", nvlink.switch_count},
                  {"efficiency", nvlink.efficiency}};
    case NvlinkKind::kBridge: {
      Json pairs = Json::array();
      for (const auto& [a, b] : nvlink.bridged_pairs) {
        pairs.push_back(Json::array({a, b}));
      }
      return Json{{"kind", "bridge"},
                  {"links_per_gpu", nvlink.links_per_gpu},
                  {"link_rate", in_gbytes(nvlink.link_rate)},
                  {"bridged_pairs", std::move(pairs)},
                  {"efficiency", nvlink.efficiency}};
    }
  }
  RAILSIM_UNREACHABLE("every NvlinkKind is written");
}

Json nic_json(const Nic& nic) {
  return Json{{"name", nic.name},
              {"model", nic.model},
              {"parent", pcie_parent_name(nic.parent)},
              {"link", link_json(nic.link)},
              {"port_rate", in_gbits(nic.port_rate)},
              {"role", nic.role == NicRole::kCompute ? "compute" : "storage"},
              {"gdr_capable", nic.gdr_capable},
              {"message_rate_per_qp", nic.message_rate_per_qp},
              {"processing_latency", in_ps(nic.processing_latency)},
              {"dma_read_latency", in_ps(nic.dma_read_latency)}};
}

}  // namespace

nlohmann::ordered_json node_json(const NodeSpec& node) {
  Json j;
  j["name"] = node.name;
  j["description"] = node.description;
  j["sockets"] = Json::array();
  for (const CpuSocket& socket : node.sockets) {
    j["sockets"].push_back(
        Json{{"model", socket.model}, {"memory_bandwidth", in_gbytes(socket.memory_bandwidth)}});
  }
  // The reader wants the rate only where there is a link to rate, and never zero.
  if (node.inter_socket.bytes_per_s > 0.0) {
    j["inter_socket"] = in_gbytes(node.inter_socket);
  }
  j["numa_nodes"] = Json::array();
  for (const NumaNode& numa : node.numa_nodes) {
    j["numa_nodes"].push_back(Json{{"id", numa.id}, {"socket", numa.socket}, {"cpus", numa.cpus}});
  }
  j["host_bridges"] = Json::array();
  for (const HostBridge& bridge : node.host_bridges) {
    j["host_bridges"].push_back(
        Json{{"numa", node.numa_nodes.at(static_cast<std::size_t>(bridge.numa)).id}});
  }
  j["switches"] = Json::array();
  for (const PcieSwitch& s : node.switches) {
    j["switches"].push_back(
        Json{{"parent", pcie_parent_name(s.parent)}, {"uplink", link_json(s.uplink)}});
  }
  j["gpus"] = Json::array();
  for (const Gpu& gpu : node.gpus) {
    j["gpus"].push_back(Json{{"model", gpu.model},
                             {"parent", pcie_parent_name(gpu.parent)},
                             {"link", link_json(gpu.link)}});
    if (gpu.c2c) {
      j["gpus"].back()["c2c"] = in_gbytes(*gpu.c2c);
    }
  }
  j["nics"] = Json::array();
  for (const Nic& nic : node.nics) {
    j["nics"].push_back(nic_json(nic));
  }
  j["nvlink"] = nvlink_json(node.nvlink);
  if (node.trays > 1) {
    j["trays"] = node.trays;
  }
  return j;
}

}  // namespace railsim::models::scenario
