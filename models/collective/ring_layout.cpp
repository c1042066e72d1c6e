// File: models/collective/ring_layout.cpp
// Rings over nodes, GPUs and NICs, as NCCL's search lays them on rail-optimised systems.
#include "models/collective/ring_layout.hpp"

#include "models/hardware/path_class.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <limits>
#include <optional>

namespace railsim::models {
namespace {

std::size_t at(int i) { return static_cast<std::size_t>(i); }

int wrap(int i, int n) { return ((i % n) + n) % n; }

}  // namespace

namespace {

// NCCL's affinity over the NICs `usable` allows: nearest first, then the least used, then the
// lowest index. Empty when none is usable.
std::vector<int> choose_nics(const System& system, int gpus, const std::vector<bool>& usable) {
  const NodeSpec& node = system.spec().node;
  const std::vector<int>& nics = system.compute_nics();
  std::vector<int> uses(nics.size(), 0);
  std::vector<int> chosen;
  chosen.reserve(at(gpus));
  for (int g = 0; g < gpus; ++g) {
    std::optional<std::size_t> best;
    auto best_key = std::pair{PathClass::kSys, std::numeric_limits<int>::max()};
    for (std::size_t i = 0; i < nics.size(); ++i) {
      if (!usable[i]) {
        continue;
      }
      const auto key = std::pair{
          pcie_path_class(node, {DeviceRef::Kind::kGpu, g}, {DeviceRef::Kind::kNic, nics[i]}),
          uses[i]};
      if (!best || key < best_key) {
        best = i;
        best_key = key;
      }
    }
    if (!best) {
      return {};
    }
    ++uses[*best];
    chosen.push_back(static_cast<int>(*best));
  }
  return chosen;
}

}  // namespace

std::vector<int> gpu_nics(const System& system, int gpus) {
  return choose_nics(system, gpus, std::vector<bool>(system.compute_nics().size(), true));
}

std::vector<int> gpu_nics_on(const System& system, int node, int gpus) {
  std::vector<bool> up(system.compute_nics().size());
  for (std::size_t i = 0; i < up.size(); ++i) {
    up[i] = system.nic_port_up(node, static_cast<int>(i));
  }
  std::vector<int> chosen = choose_nics(system, gpus, up);
  if (chosen.empty()) {
    throw sim::InputError(fmt::format(
        "node {} has no compute NIC whose port is up: its GPUs cannot reach the network", node));
  }
  return chosen;
}

std::vector<std::vector<int>> comm_gpu_nics(const System& system, const Communicator& comm) {
  std::vector<std::vector<int>> nic_of;
  nic_of.reserve(at(comm.nodes));
  for (int n = 0; n < comm.nodes; ++n) {
    nic_of.push_back(comm.nodes > 1 ? gpu_nics_on(system, n, comm.gpus_per_node)
                                    : gpu_nics(system, comm.gpus_per_node));
  }
  return nic_of;
}

void check_fits(const System& system, const Communicator& comm, std::optional<int> channels) {
  const int gpus = static_cast<int>(system.spec().node.gpus.size());
  if (comm.nodes < 1 || comm.nodes > system.spec().nodes) {
    throw sim::InputError(
        fmt::format("{} nodes asked for, the system has {}", comm.nodes, system.spec().nodes));
  }
  if (comm.gpus_per_node < 1 || comm.gpus_per_node > gpus) {
    throw sim::InputError(fmt::format("{} GPUs per node asked for, a {} node has {}",
                                      comm.gpus_per_node, system.spec().node.name, gpus));
  }
  if (channels && (*channels < 1 || *channels > 64)) {
    throw sim::InputError(
        fmt::format("{} channels, expected 1 to 64 (NCCL's MAXCHANNELS)", *channels));
  }
}

RingLayout ring_layout(const System& system, const Communicator& comm, const RingOptions& options) {
  check_fits(system, comm, options.channels);
  if (options.cross_nic < 0 || options.cross_nic > 2) {
    throw sim::InputError(fmt::format("cross_nic {}, expected 0, 1 or 2", options.cross_nic));
  }
  const int g_count = comm.gpus_per_node;
  // Per node: a NIC whose port is down is left out, and its GPUs use the nearest one left.
  const std::vector<std::vector<int>> nic_of = comm_gpu_nics(system, comm);
  RingLayout layout;
  for (int c = 0; c < options.channels; ++c) {
    const int enter = wrap(c, g_count);
    const int leave = wrap(c + 1, g_count);
    std::vector<int> ring;
    ring.reserve(at(comm.ranks()));
    for (int n = 0; n < comm.nodes; ++n) {
      const bool reversed = options.cross_nic == 2 && n % 2 == 1;
      for (int i = 0; i < g_count; ++i) {
        ring.push_back(
            comm.rank_of(n, reversed ? wrap(leave + i, g_count) : wrap(enter - i, g_count)));
      }
    }
    std::vector<RingHop> hops;
    hops.reserve(ring.size());
    for (std::size_t p = 0; p < ring.size(); ++p) {
      RingHop hop;
      hop.src = ring[p];
      hop.dst = ring[(p + 1) % ring.size()];
      hop.inter_node = comm.node_of(hop.src) != comm.node_of(hop.dst);
      if (hop.inter_node) {
        const int from_gpu = comm.gpu_of(hop.src);
        const int to_gpu = comm.gpu_of(hop.dst);
        const int node = comm.node_of(hop.src);
        hop.recv_nic = nic_of[at(comm.node_of(hop.dst))][at(to_gpu)];
        hop.send_nic = nic_of[at(node)][at(from_gpu)];
        if (options.cross_nic == 0) {
          // Leave by the NIC the ring entered this node by: that of the node's first GPU.
          const int entry_gpu = comm.gpu_of(ring[p + 1 - at(g_count)]);
          hop.send_nic = nic_of[at(node)][at(entry_gpu)];
          if (options.pxn && entry_gpu != from_gpu &&
              !system.uses_gdr(node, from_gpu, hop.send_nic) &&
              system.uses_gdr(node, entry_gpu, hop.send_nic) &&
              nvlinks_between(system.spec().node, from_gpu, entry_gpu) > 0) {
            hop.relay_gpu = entry_gpu;
          }
        }
      }
      hops.push_back(hop);
    }
    layout.rings.push_back(std::move(ring));
    layout.hops.push_back(std::move(hops));
  }
  return layout;
}

}  // namespace railsim::models
