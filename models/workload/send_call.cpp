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

// NCCL's network channels to one peer on each of a GPU's `nics`.
int network_channels(const System& system, const std::vector<int>& nics) {
  const Nic& nic = system.spec().node.nics[at(system.compute_nics()[at(nics.front())])];
  return p2p_net_channels(nic.port_rate.bytes_per_s, static_cast<int>(nics.size()));
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
    // Each of the sender's NICs carries its channels, round by round (nic_affinity.hpp).
    const CommNics nic_of(system, pair);
    const std::vector<int>& nics = nic_of.nics(0, 0);
    const int count = network_channels(system, nics) * static_cast<int>(nics.size());
    for (int c = 0; c < count; ++c) {
      hop.send_nic = nic_of.nic(0, 0, c);
      hop.recv_nic = nic_of.nic(1, 0, c);
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
