// File: models/collective/ring_layout.cpp
// Rings over nodes, GPUs and NICs, as NCCL's search lays them on rail-optimised systems.
#include "models/collective/ring_layout.hpp"

#include "models/collective/nccl_tuner_tables.hpp"
#include "models/hardware/path_class.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

namespace railsim::models {
namespace {

using sim::at;

int wrap(int i, int n) { return ((i % n) + n) % n; }

// Where `ids` (a communicator's node or GPU list) breaks the rules: its size, a value out of
// [0, limit), a repeat; empty when it keeps them.
std::string bad_ids(const std::vector<int>& ids, int count, int limit, const char* what) {
  if (ids.empty()) {
    return {};
  }
  if (static_cast<int>(ids.size()) != count) {
    return fmt::format("{} {} ids for {} {}s", ids.size(), what, count, what);
  }
  std::vector<bool> seen(at(limit), false);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const int id = ids[i];
    if (id < 0 || id >= limit) {
      return fmt::format("{} id {} (entry {}), expected 0 to {}", what, id, i, limit - 1);
    }
    if (seen[at(id)]) {
      return fmt::format("{} id {} (entry {}) is listed twice", what, id, i);
    }
    seen[at(id)] = true;
  }
  return {};
}

}  // namespace

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
  if (const std::string bad = bad_ids(comm.node_ids, comm.nodes, system.spec().nodes, "node");
      !bad.empty()) {
    throw sim::InputError(
        fmt::format("communicator: {}, the system has {} nodes", bad, system.spec().nodes));
  }
  if (const std::string bad = bad_ids(comm.gpu_ids, comm.gpus_per_node, gpus, "gpu");
      !bad.empty()) {
    throw sim::InputError(
        fmt::format("communicator: {}, a {} node has {} GPUs", bad, system.spec().node.name, gpus));
  }
  if (channels && (*channels < 1 || *channels > nccl::kMaxChannels)) {
    throw sim::InputError(fmt::format("{} channels, expected 1 to {} (NCCL's MAXCHANNELS)",
                                      *channels, nccl::kMaxChannels));
  }
}

bool pxn_can_relay(const System& system, int node, int from, int relay, int nic) {
  return system.uses_gdr(node, relay, nic) &&
         nvlinks_between(system.node_spec(node), from, relay) > 0;
}

void start_after_root(RingLayout& layout) {
  for (std::size_t c = 0; c < layout.rings.size(); ++c) {
    std::rotate(layout.rings[c].begin(), layout.rings[c].begin() + 1, layout.rings[c].end());
    std::rotate(layout.hops[c].begin(), layout.hops[c].begin() + 1, layout.hops[c].end());
  }
}

RingLayout ring_layout(const System& system, const Communicator& comm, const RingOptions& options) {
  check_fits(system, comm, options.channels);
  if (options.cross_nic < 0 || options.cross_nic > 2) {
    throw sim::InputError(fmt::format("cross_nic {}, expected 0, 1 or 2", options.cross_nic));
  }
  const int g_count = comm.gpus_per_node;
  // Per node: a NIC whose port is down is left out, and its GPUs use the nearest one left.
  const CommNics nic_of(system, comm);
  RingLayout layout;
  for (int c = 0; c < options.channels; ++c) {
    const int enter = wrap(c, g_count);
    const int leave = wrap(c + 1, g_count);
    const int round = c / g_count;  // channels c and c + G leave by a GPU's next port
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
        hop.recv_nic = nic_of.nic(comm.node_of(hop.dst), to_gpu, round);
        hop.send_nic = nic_of.nic(node, from_gpu, round);
        if (options.cross_nic == 0) {
          // Leave by the NIC the ring entered this node by: that of the node's first GPU.
          const int entry_gpu = comm.gpu_of(ring[p + 1 - at(g_count)]);
          hop.send_nic = nic_of.nic(node, entry_gpu, round);
          const int sys_node = comm.system_node(node);
          const int sys_from = comm.system_gpu(from_gpu);
          const int sys_entry = comm.system_gpu(entry_gpu);
          if (options.pxn && entry_gpu != from_gpu &&
              !system.uses_gdr(sys_node, sys_from, hop.send_nic) &&
              pxn_can_relay(system, sys_node, sys_from, sys_entry, hop.send_nic)) {
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
