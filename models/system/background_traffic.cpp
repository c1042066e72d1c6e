// File: models/system/background_traffic.cpp
// Steady streams of other jobs, started as flows that outlast any simulated run.
#include "models/system/background_traffic.hpp"

#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <numeric>

namespace railsim::models {
namespace {

// Long enough that no run sees a stream end: a day of simulated time.
constexpr double kStreamSeconds = 86'400.0;

// Separates the streams' ECMP hashes from the collectives' queue pairs (channel x qps + qp).
constexpr std::uint64_t kStreamQueuePairBase = 1u << 20;

}  // namespace

void start_background(const System& system,
                      sim::FlowNetwork& network,
                      const std::vector<BackgroundFlow>& flows) {
  const int nodes = system.spec().nodes;
  const auto nics = static_cast<int>(system.compute_nics().size());
  std::uint64_t stream = kStreamQueuePairBase;
  for (const BackgroundFlow& flow : flows) {
    const auto fail = [&](const std::string& what) {
      return sim::InputError(fmt::format("{}: {}", flow.where, what));
    };
    for (const int node : {flow.from_node, flow.to_node}) {
      if (node < 0 || node >= nodes) {
        throw fail(
            fmt::format("node {} does not exist; the system has nodes 0-{}", node, nodes - 1));
      }
    }
    if (flow.from_node == flow.to_node) {
      throw fail("a stream needs two different nodes");
    }
    if (!(flow.load > 0.0 && flow.load <= 1.0)) {
      throw fail(fmt::format("load {} is not in (0, 1]", flow.load));
    }
    std::vector<int> rails = flow.rails;
    if (rails.empty()) {
      rails.resize(static_cast<std::size_t>(nics));
      std::iota(rails.begin(), rails.end(), 0);
    }
    for (const int rail : rails) {
      if (rail < 0 || rail >= nics) {
        throw fail(
            fmt::format("rail {} does not exist; a node has compute NICs 0-{}", rail, nics - 1));
      }
      const Endpoint src{flow.from_node, rail, kHostMemory};
      const Endpoint dst{flow.to_node, rail, kHostMemory};
      const std::vector<std::vector<sim::LinkId>> lanes = system.routes(src, dst, stream++);
      // The sending NIC's port sets the stream's rate: the first port link on its way out.
      double port_rate = 0.0;
      for (const sim::LinkId link : lanes.front()) {
        if (system.is_node_port_link(link)) {
          port_rate = network.link(link).capacity.bytes_per_s;
          break;
        }
      }
      const double lane_rate = flow.load * port_rate / static_cast<double>(lanes.size());
      for (const auto& path : lanes) {
        sim::FlowSpec spec;
        spec.path = path;
        spec.rate_cap = sim::Bandwidth{lane_rate};
        spec.size = sim::bytes(static_cast<std::int64_t>(std::ceil(lane_rate * kStreamSeconds)));
        network.start_flow(std::move(spec));
      }
    }
  }
}

}  // namespace railsim::models
