// File: models/collective/nic_affinity.cpp
// NCCL's GPU-NIC affinity: each GPU's own NIC, then the NICs left over at its distance.
#include "models/collective/nic_affinity.hpp"

#include "models/hardware/path_class.hpp"
#include "sim/assert.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

namespace railsim::models {
namespace {

using sim::at;

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
  std::vector<double> reach(at(gpus), 0.0);  // per GPU: its NICs' port rates, bytes/s
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
    reach[at(g)] = port_rate(static_cast<int>(*best)).bytes_per_s;
  }
  for (std::size_t i = 0; i < nics.size(); ++i) {
    if (!usable[i] || uses[i] > 0) {
      continue;
    }
    std::optional<int> fewest;
    for (int g = 0; g < gpus; ++g) {
      const std::vector<int>& own = chosen[at(g)];
      const double gpu_rate = gpu_host_rate(node, g).bytes_per_s;
      if (reach[at(g)] < gpu_rate && distance(g, i) == distance(g, at(own.front())) &&
          (!fewest || own.size() < chosen[at(*fewest)].size())) {
        fewest = g;
      }
    }
    if (fewest) {
      chosen[at(*fewest)].push_back(static_cast<int>(i));
      reach[at(*fewest)] += port_rate(static_cast<int>(i)).bytes_per_s;
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
  std::vector<bool> allowed(system.compute_nics().size());
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    allowed[i] = system.nccl_may_use(static_cast<int>(i));
  }
  return choose_nics(system, node, gpus, allowed);
}

GpuNicSets gpu_nics_on(const System& system, int node, int gpus) {
  std::vector<bool> up(system.compute_nics().size());
  for (std::size_t i = 0; i < up.size(); ++i) {
    up[i] =
        system.nic_port_up(node, static_cast<int>(i)) && system.nccl_may_use(static_cast<int>(i));
  }
  GpuNicSets chosen = choose_nics(system, node, gpus, up);
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
  sets_.reserve(at(comm.nodes));
  for (int n = 0; n < comm.nodes; ++n) {
    GpuNicSets by_system_gpu = comm.nodes > 1 ? gpu_nics_on(system, comm.system_node(n), spanned)
                                              : gpu_nics(system, comm.system_node(n), spanned);
    GpuNicSets& local = sets_.emplace_back();
    local.reserve(at(comm.gpus_per_node));
    for (int g = 0; g < comm.gpus_per_node; ++g) {
      local.push_back(std::move(by_system_gpu[at(comm.system_gpu(g))]));
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

}  // namespace railsim::models
