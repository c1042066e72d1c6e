// File: models/fault/link_fault.cpp
// Link faults onto a network's links: for the whole run, or in timed windows.
#include "models/fault/link_fault.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

namespace railsim::models {

std::string fault_text(const LinkFault& fault) {
  std::string text = fault.link;
  text += fault.down ? std::string(" down")
          : fault.rate.bytes_per_s > 0.0
              ? fmt::format(" at {:g} Gb/s", fault.rate.bytes_per_s * 8e-9)
              : fmt::format(" x{:g}", fault.rate_scale);
  if (fault.schedule) {
    text += " (timed)";
  }
  return text;
}

void apply_link_faults(const std::vector<LinkFault>& faults,
                       const FaultLink& link_of,
                       System& system,
                       sim::FlowNetwork& network) {
  for (const LinkFault& fault : faults) {
    if (fault.schedule) {
      continue;
    }
    const sim::LinkId found = link_of(fault);
    if (fault.down) {
      try {
        system.set_link_down(found);
      } catch (const sim::InputError& e) {
        throw LinkFaultError(fault, e.what());
      }
      continue;
    }
    const sim::Bandwidth now = network.link(found).capacity;
    network.set_link_capacity(found,
                              fault.rate.bytes_per_s > 0.0 ? fault.rate : now * fault.rate_scale);
  }
}

void schedule_link_faults(const std::vector<LinkFault>& faults,
                          const FaultLink& link_of,
                          sim::FlowNetwork& network,
                          sim::Simulator& simulator) {
  // Per link: its capacity before any window, and the capacities of the windows open now.
  struct LinkState {
    sim::Bandwidth base;
    std::multiset<double> open;
  };

  auto states = std::make_shared<std::map<std::uint32_t, LinkState>>();
  const auto update = [&network, states](std::uint32_t link) {
    const LinkState& state = states->at(link);
    const double capacity = state.open.empty()
                                ? state.base.bytes_per_s
                                : std::min(state.base.bytes_per_s, *state.open.begin());
    network.set_link_capacity(sim::LinkId{link}, sim::Bandwidth{capacity});
  };
  const sim::SimTime origin = simulator.now();
  for (const LinkFault& fault : faults) {
    if (!fault.schedule) {
      continue;
    }
    const sim::LinkId link = link_of(fault);
    const sim::Bandwidth base = network.link(link).capacity;
    states->try_emplace(link.index, LinkState{base, {}});
    const double capacity =
        fault.rate.bytes_per_s > 0.0 ? fault.rate.bytes_per_s : base.bytes_per_s * fault.rate_scale;
    const FaultSchedule& schedule = *fault.schedule;
    for (int k = 0; k < schedule.times; ++k) {
      const sim::SimTime opens =
          origin + schedule.from + k * schedule.every.value_or(sim::Duration{});
      simulator.schedule_at(opens, [states, update, id = link.index, capacity] {
        states->at(id).open.insert(capacity);
        update(id);
      });
      if (schedule.length) {
        simulator.schedule_at(opens + *schedule.length,
                              [states, update, id = link.index, capacity] {
                                auto& open = states->at(id).open;
                                open.erase(open.find(capacity));
                                update(id);
                              });
      }
    }
  }
}

}  // namespace railsim::models
