// File: models/workload/send_call.cpp
#include "models/workload/send_call.hpp"

#include "models/collective/connection_routes.hpp"
#include "models/collective/p2p_plan.hpp"
#include "models/collective/ring_layout.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <memory>
#include <utility>
#include <vector>

namespace railsim::models {
namespace {

using sim::at;

// NCCL's network channels to one peer; the pair uses one NIC at each end.
int network_channels(const System& system, int compute_nic) {
  const Nic& nic = system.spec().node.nics[at(system.compute_nics()[at(compute_nic)])];
  return p2p_net_channels(nic.port_rate.bytes_per_s);
}

}  // namespace

void start_send(const System& system,
                sim::FlowNetwork& network,
                const Communicator& pair,
                sim::Bytes size,
                std::function<void()> done) {
  if (pair.ranks() != 2) {
    throw sim::InputError(fmt::format(
        "a send needs a pair of ranks (two nodes of one GPU, or one node of two GPUs), not {}",
        pair.ranks()));
  }
  check_fits(system, pair, std::nullopt);
  RingHop hop;
  hop.src = 0;
  hop.dst = 1;
  hop.inter_node = pair.nodes == 2;
  std::vector<Paths> channels;
  if (hop.inter_node) {
    const std::vector<std::vector<int>> nic_of = comm_gpu_nics(system, pair);
    hop.send_nic = nic_of[0][0];
    hop.recv_nic = nic_of[1][0];
    const int count = network_channels(system, hop.send_nic);
    for (int c = 0; c < count; ++c) {
      channels.push_back(hop_paths(system, pair, hop, static_cast<std::uint64_t>(c)));
    }
  } else {
    channels.push_back(hop_paths(system, pair, hop, 0));
  }
  std::size_t flows = 0;
  for (const Paths& paths : channels) {
    flows += paths.size();
  }
  // Equal shares, the first ones a byte larger where the size does not divide.
  const auto share = static_cast<std::int64_t>(flows);
  auto remaining = std::make_shared<std::size_t>(flows);
  auto finished = std::make_shared<std::function<void()>>(std::move(done));
  std::int64_t index = 0;
  for (Paths& paths : channels) {
    for (std::vector<sim::LinkId>& path : paths) {
      sim::FlowSpec spec;
      spec.path = std::move(path);
      spec.size = sim::Bytes{size.count / share + (index < size.count % share ? 1 : 0)};
      spec.on_complete = [remaining, finished](const sim::FlowRecord&) {
        if (--*remaining == 0 && *finished) {
          (*finished)();
        }
      };
      network.start_flow(std::move(spec));
      ++index;
    }
  }
}

}  // namespace railsim::models
