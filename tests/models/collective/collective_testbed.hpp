// File: tests/models/collective/collective_testbed.hpp
// A preset system on its own simulator, for the collective run tests: a forced algorithm,
// protocol and channel count per call, as NCCL_ALGO / NCCL_PROTO / NCCL_MIN_NCHANNELS do.
#pragma once

#include "models/collective/collective_run.hpp"
#include "models/fabric/fabric_presets.hpp"
#include "models/hardware/node_presets.hpp"

#include <memory>
#include <optional>
#include <string>

namespace railsim::models::testing {

// Per direction, GB/s: an H100's NVLink 4 port through the NVSwitch, 18 x 25 GB/s at NCCL's
// 370/450 (NvlinkDomain::efficiency); a PCIe Gen5 x16 GPU-NIC path, 32 GT/s x 16 x 128/130 / 8
// at 0.78 (kPcieEfficiency).
inline constexpr double kH100PortGBps = 370.0;
inline constexpr double kGen5GBps = 32.0 * 16.0 * 128.0 / 130.0 / 8.0 * 0.78;

struct CollectiveBed {
  sim::Simulator simulator;
  sim::FlowNetwork network{simulator};
  std::unique_ptr<System> system;
  Communicator comm;

  CollectiveBed(const SystemSpec& spec, int gpus_per_node)
      : system(std::make_unique<System>(spec, network)), comm{spec.nodes, gpus_per_node} {}

  // `fabric`: a fabric preset grown to the nodes, or empty for the node preset's own fabric.
  CollectiveBed(int nodes,
                int gpus_per_node,
                const std::string& preset = "dgx-h100",
                const std::string& fabric = "")
      : CollectiveBed(spec_of(nodes, preset, fabric), gpus_per_node) {}

  static SystemSpec spec_of(int nodes, const std::string& preset, const std::string& fabric) {
    SystemSpec spec;
    spec.node = node_preset(preset);
    spec.nodes = nodes;
    if (!fabric.empty()) {
      spec.fabric = fabric_preset(fabric);
    }
    return spec;
  }

  CollectiveResult run(CollectiveOp op,
                       sim::Bytes size,
                       std::optional<Algorithm> algorithm,
                       std::optional<Protocol> protocol,
                       std::optional<int> channels,
                       std::optional<Execution> execution = std::nullopt) {
    CollectiveRequest request;
    request.op = op;
    request.size = size;
    request.comm = comm;
    request.algorithm = algorithm;
    request.protocol = protocol;
    request.channels = channels;
    request.execution = execution;
    return run_collective(*system, network, simulator, request);
  }
};

inline double seconds(sim::Duration d) { return sim::to_seconds(d); }

}  // namespace railsim::models::testing
