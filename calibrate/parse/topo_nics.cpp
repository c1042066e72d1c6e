// File: calibrate/parse/topo_nics.cpp
#include "calibrate/parse/topo_nics.hpp"

#include "sim/index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace railsim::calibrate::parse {
namespace {

using sim::at;

// The ibdev2netdev ports of one verbs device.
std::vector<const Ibdev2netdevPort*> ports_of(const Ibdev2netdevOutput* ports,
                                              const std::string& device) {
  std::vector<const Ibdev2netdevPort*> found;
  if (ports != nullptr) {
    for (const Ibdev2netdevPort& port : ports->ports) {
      if (port.device == device) {
        found.push_back(&port);
      }
    }
  }
  return found;
}

bool port_up(const Ibdev2netdevPort& port) {
  return port.netdev_up && (!port.details || port.details->port_state == "ACTIVE");
}

// IPoIB interfaces are named ib*; any other netdev (enp*, eth*, bond*) is Ethernet: RoCE.
models::Transport transport_of(const Ibdev2netdevPort& port) {
  return port.netdev.starts_with("ib") ? models::Transport::kInfiniband : models::Transport::kRoce;
}

struct NicState {
  bool listed = false;
  bool up = true;
  models::Transport transport = models::Transport::kInfiniband;
};

NicState state_of(const Ibdev2netdevOutput* listing, const std::string& device) {
  NicState state;
  const std::vector<const Ibdev2netdevPort*> ports = ports_of(listing, device);
  if (ports.empty()) {
    return state;
  }
  state.listed = true;
  state.up = std::any_of(ports.begin(), ports.end(), [](const auto* p) { return port_up(*p); });
  const auto up =
      std::find_if(ports.begin(), ports.end(), [](const auto* p) { return port_up(*p); });
  state.transport = transport_of(**(up == ports.end() ? ports.begin() : up));
  return state;
}

// The verbs name the NIC legend gives column d, else the column's own name.
std::string nic_name(const TopoCells& cells, int d) {
  for (const auto& [column, device] : cells.topo().nic_legend) {
    if (column == cells.name(d)) {
      return device;
    }
  }
  return cells.name(d);
}

// Each GPU in turn takes the closest free usable NIC (ties to the lower index) as its compute NIC.
void take_compute_nics(const TopoCells& cells,
                       const std::vector<NicState>& states,
                       models::Transport fabric,
                       models::NodeSpec& node) {
  const int gpus = cells.gpus();
  const int nics = cells.devices() - gpus;
  std::vector<bool> taken(at(nics), false);
  for (int g = 0; g < gpus; ++g) {
    int best = -1;
    for (int n = 0; n < nics; ++n) {
      const int l = cells.level(g, gpus + n);
      const bool usable = !taken[at(n)] && states[at(n)].up &&
                          (!states[at(n)].listed || states[at(n)].transport == fabric) && l > 0;
      if (usable && (best < 0 || l < cells.level(g, gpus + best))) {
        best = n;
      }
    }
    if (best >= 0) {
      taken[at(best)] = true;
      node.nics[at(best)].role = models::NicRole::kCompute;
    }
  }
}

}  // namespace

models::Transport build_nics(const TopoCells& cells,
                             const Ibdev2netdevOutput* ports,
                             const models::Nic& reference,
                             TopoImport& import) {
  models::NodeSpec& node = import.node;
  const int gpus = cells.gpus();
  const int nics = cells.devices() - gpus;
  std::vector<NicState> states;
  std::map<models::Transport, int> near_gpu;
  for (int n = 0; n < nics; ++n) {
    models::Nic& nic = node.nics[at(n)];
    nic.name = nic_name(cells, gpus + n);
    states.push_back(state_of(ports, nic.name));
    nic.transport = states.back().transport;
    nic.model = reference.model + " (assumed)";
    const std::vector<const Ibdev2netdevPort*> listed = ports_of(ports, nic.name);
    if (!listed.empty() && listed.front()->details &&
        !listed.front()->details->description.empty()) {
      nic.model = listed.front()->details->description;
    }
    nic.link = reference.link;
    nic.port_rate = reference.port_rate;
    nic.role = models::NicRole::kStorage;
    bool shares_switch = false;
    for (int g = 0; g < gpus; ++g) {
      const int l = cells.level(g, gpus + n);
      shares_switch = shares_switch || (l > 0 && l <= kPxbLevel);
    }
    if (states.back().up && shares_switch) {
      ++near_gpu[nic.transport];
    }
    if (ports != nullptr && !states.back().listed) {
      import.notes.push_back(
          fmt::format("{} is not in the ibdev2netdev listing: taken as up", nic.name));
    }
  }
  // One fabric carries the collectives, so one link layer: that of most NICs near a GPU.
  const models::Transport fabric =
      near_gpu[models::Transport::kRoce] > near_gpu[models::Transport::kInfiniband]
          ? models::Transport::kRoce
          : models::Transport::kInfiniband;
  take_compute_nics(cells, states, fabric, node);
  std::vector<std::string> down;
  std::vector<std::string> storage;
  for (int n = 0; n < nics; ++n) {
    models::Nic& nic = node.nics[at(n)];
    if (!states[at(n)].listed) {
      nic.transport = fabric;
    }
    if (!states[at(n)].up) {
      down.push_back(nic.name);
    } else if (nic.role == models::NicRole::kStorage) {
      storage.push_back(nic.name);
    }
  }
  if (!down.empty()) {
    import.notes.push_back(fmt::format("down in ibdev2netdev, so storage (no collectives): {}",
                                       fmt::join(down, ", ")));
  }
  if (!storage.empty()) {
    import.notes.push_back(
        fmt::format("no GPU took them as its closest NIC, so storage (no collectives): {}",
                    fmt::join(storage, ", ")));
  }
  if (ports == nullptr && nics > 0) {
    import.assumed.emplace_back(
        "every NIC is up and InfiniBand (give --ibdev2netdev to read states and link layers)");
  }
  return fabric;
}

}  // namespace railsim::calibrate::parse
