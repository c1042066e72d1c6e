// File: models/collective/nic_affinity.cpp
// NCCL's GPU-NIC affinity: each GPU's own NIC, then the NICs left over at its distance.
#include "models/collective/nic_affinity.hpp"

#include "models/hardware/path_class.hpp"
#include "sim/assert.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>
#include <utility>

namespace railsim::models {
namespace {

using sim::at;

// Per compute NIC: whether NCCL may use it on `node` (NCCL_IB_HCA) and, with `port_up`, its port
// is in service there.
std::vector<bool> usable_nics(const System& system, int node, bool port_up) {
  std::vector<bool> usable(system.compute_nics().size());
  for (std::size_t i = 0; i < usable.size(); ++i) {
    const auto nic = static_cast<int>(i);
    usable[i] = system.nccl_may_use(nic) && (!port_up || system.nic_port_up(node, nic));
  }
  return usable;
}

// NCCL's affinity over the NICs `usable` allows (see the header). Empty when none is usable.
GpuNicSets choose_nics(const System& system,
                       int node_index,
                       int gpus,
                       const std::vector<bool>& usable) {
  const NodeSpec& node = system.node_spec(node_index);
  const std::vector<int>& nics = system.compute_nics();
  const auto distance = [&](int gpu, std::size_t nic) {
    return pcie_path_class(node, {DeviceRef::Kind::kGpu, gpu}, {DeviceRef::Kind::kNic, nics[nic]});
  };
  const auto port_rate = [&](int nic) { return node.nics[at(nics[at(nic)])].port_rate; };
  std::vector<int> uses(nics.size(), 0);
  GpuNicSets chosen(at(gpus));
  // Per GPU: the distance of its own NIC, and how much of its link to the host its NICs' port
  // rates leave, bytes/s.
  std::vector<PathClass> own_distance(at(gpus));
  std::vector<double> unfed(at(gpus));
  for (int g = 0; g < gpus; ++g) {
    std::optional<std::size_t> best;
    auto best_key = std::pair{PathClass::kSys, std::numeric_limits<int>::max()};
    for (std::size_t i = 0; i < nics.size(); ++i) {
      if (!usable[i]) {
        continue;
      }
      const auto key = std::pair{distance(g, i), uses[i]};
      if (!best || key < best_key) {
        best = i;
        best_key = key;
      }
    }
    if (!best) {
      return {};
    }
    ++uses[*best];
    chosen[at(g)].push_back(static_cast<int>(*best));
    own_distance[at(g)] = best_key.first;
    unfed[at(g)] =
        gpu_host_rate(node, g).bytes_per_s - port_rate(static_cast<int>(*best)).bytes_per_s;
  }
  for (std::size_t i = 0; i < nics.size(); ++i) {
    if (!usable[i] || uses[i] > 0) {
      continue;
    }
    std::optional<int> fewest;
    for (int g = 0; g < gpus; ++g) {
      if (unfed[at(g)] > 0.0 && distance(g, i) == own_distance[at(g)] &&
          (!fewest || chosen[at(g)].size() < chosen[at(*fewest)].size())) {
        fewest = g;
      }
    }
    if (fewest) {
      chosen[at(*fewest)].push_back(static_cast<int>(i));
      unfed[at(*fewest)] -= port_rate(static_cast<int>(i)).bytes_per_s;
    }
  }
  return chosen;
}

// The highest system GPU of `comm`, plus one: how many GPUs NIC affinity is chosen over, so
// that a GPU keeps the NICs it has when its whole node is in the communicator.
int gpus_spanned(const Communicator& comm) {
  int spanned = 0;
  for (int g = 0; g < comm.gpus_per_node; ++g) {
    spanned = std::max(spanned, comm.system_gpu(g) + 1);
  }
  return spanned;
}

}  // namespace

int nic_in_round(const std::vector<int>& nics, int round) {
  RAILSIM_ASSERT(!nics.empty() && round >= 0, "a GPU with NICs, a round from 0");
  return nics[at(round) % nics.size()];
}

GpuNicSets gpu_nics(const System& system, int node, int gpus) {
  return choose_nics(system, node, gpus, usable_nics(system, node, false));
}

GpuNicSets gpu_nics_on(const System& system, int node, int gpus) {
  GpuNicSets chosen = choose_nics(system, node, gpus, usable_nics(system, node, true));
  if (chosen.empty()) {
    throw sim::InputError(fmt::format(
        "node {} has no compute NIC whose port is up (and NCCL_IB_HCA allows): its GPUs cannot "
        "reach the network",
        node));
  }
  return chosen;
}

CommNics::CommNics(const System& system, const Communicator& comm) {
  const int spanned = gpus_spanned(comm);
  const bool port_up = comm.nodes > 1;

  // The choice depends on the node's spec and which of its NICs are usable, nothing else: nodes
  // alike in both share one, so a communicator of thousands of nodes makes it a few times.
  struct Choice {
    const NodeSpec* spec = nullptr;
    std::vector<bool> usable;
    GpuNicSets by_system_gpu;
  };

  std::vector<Choice> made;
  sets_.reserve(at(comm.nodes));
  for (int n = 0; n < comm.nodes; ++n) {
    const int node = comm.system_node(n);
    const NodeSpec* spec = &system.node_spec(node);
    std::vector<bool> usable = usable_nics(system, node, port_up);
    auto choice = std::find_if(made.begin(), made.end(), [&](const Choice& c) {
      return c.spec == spec && c.usable == usable;
    });
    if (choice == made.end()) {
      made.push_back(
          {spec, std::move(usable),
           port_up ? gpu_nics_on(system, node, spanned) : gpu_nics(system, node, spanned)});
      choice = std::prev(made.end());
    }
    GpuNicSets& local = sets_.emplace_back();
    local.reserve(at(comm.gpus_per_node));
    for (int g = 0; g < comm.gpus_per_node; ++g) {
      local.push_back(choice->by_system_gpu[at(comm.system_gpu(g))]);
    }
  }
}

int CommNics::nic(int node, int gpu, int round) const {
  return nic_in_round(nics(node, gpu), round);
}

const std::vector<int>& CommNics::nics(int node, int gpu) const { return sets_[at(node)][at(gpu)]; }

int CommNics::distinct_nics(int node) const {
  std::vector<int> all;
  for (const std::vector<int>& nics : sets_[at(node)]) {
    all.insert(all.end(), nics.begin(), nics.end());
  }
  std::sort(all.begin(), all.end());
  return static_cast<int>(std::unique(all.begin(), all.end()) - all.begin());
}

std::vector<int> CommNics::heads(int count) const {
  std::vector<int> taken;  // the own NIC of each GPU before g
  std::vector<int> out;
  const auto gpus = static_cast<int>(sets_.front().size());
  for (int g = 0; g < gpus && static_cast<int>(out.size()) < count; ++g) {
    const int own = nic(0, g);
    if (std::find(taken.begin(), taken.end(), own) == taken.end()) {
      out.push_back(g);
    }
    taken.push_back(own);
  }
  return out;
}

}  // namespace railsim::models
