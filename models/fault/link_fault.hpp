// File: models/fault/link_fault.hpp
// LinkFault: a link of a built System at another rate, or out of service, for the whole run or
// in timed windows (a link flapping, or degrading mid-run); and its application to the links.
// Scenario and fault files name links as `railsim topo --links` lists them; models/scenario reads
// them and finds the links, this file changes them.
#pragma once

#include "models/system/system.hpp"
#include "sim/bandwidth.hpp"
#include "sim/flow_network.hpp"
#include "sim/input_error.hpp"
#include "sim/simulator.hpp"
#include "sim/time.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace railsim::models {

// When a timed fault holds: from `from` after the run starts, for `length` (unset: to the end),
// and again every `every` after that, `times` windows in all.
struct FaultSchedule {
  sim::Duration from{};
  std::optional<sim::Duration> length;
  std::optional<sim::Duration> every;
  int times = 1;
};

// A link fault, applied once the System's links exist: the named link's rate scaled or set.
struct LinkFault {
  std::string link;          // a link name as `railsim topo --links` lists them
  double rate_scale = 1.0;   // applied when rate is not set
  sim::Bandwidth rate;       // bytes/s; zero means "scale instead"
  bool down = false;         // taken out of service instead (fabric links only)
  std::string json_pointer;  // where the fault was written, for errors found when applied
  std::optional<FaultSchedule> schedule;  // unset: for the whole run
};

// The fault as reports and traces name it: "n2.mlx5_0>leaf0 x0.5", "leaf0>spine1.0 down",
// "n0.mlx5_0>leaf0 at 200 Gb/s", with " (timed)" when it has a schedule.
std::string fault_text(const LinkFault& fault);

// A fault that cannot be applied to the link it names (a NIC's port cannot go down alone, ...).
class LinkFaultError : public sim::InputError {
 public:
  LinkFaultError(const LinkFault& fault, const std::string& message)
      : sim::InputError(message), json_pointer_(fault.json_pointer) {}

  // Where the fault was written.
  const std::string& json_pointer() const { return json_pointer_; }

 private:
  std::string json_pointer_;
};

// The link each fault names in the network (the caller's lookup, which reports a missing name).
using FaultLink = std::function<sim::LinkId(const LinkFault&)>;

// Applies the faults without a schedule to the links `system` built in `network`: rates changed,
// fabric links taken down. Throws LinkFaultError for a link that cannot go down.
void apply_link_faults(const std::vector<LinkFault>& faults,
                       const FaultLink& link_of,
                       System& system,
                       sim::FlowNetwork& network);

// Schedules the faults with a schedule on `simulator`, from its current time: in each window the
// link's capacity becomes the fault's (a scale of the capacity the link had when this was
// called), and returns to that when the window ends; where windows on one link overlap, the
// lowest capacity holds. O(windows) events.
void schedule_link_faults(const std::vector<LinkFault>& faults,
                          const FaultLink& link_of,
                          sim::FlowNetwork& network,
                          sim::Simulator& simulator);

}  // namespace railsim::models
