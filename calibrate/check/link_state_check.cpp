// File: calibrate/check/link_state_check.cpp
#include "calibrate/check/link_state_check.hpp"

#include "calibrate/parse/text_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace railsim::calibrate::check {

using parse::Evidence;
using parse::Ibdev2netdevOutput;
using parse::Ibdev2netdevPort;
using parse::IbstatCa;
using parse::IbstatOutput;
using parse::IbstatPort;
using parse::NodeEvidence;

namespace {

// Collectives do not use storage NICs: a fault there costs no step time.
Severity cost(const models::Nic& nic, Severity for_compute) {
  return nic.role == models::NicRole::kCompute ? for_compute : Severity::kMinor;
}

const char* link_layer(const models::Nic& nic) {
  return nic.transport == models::Transport::kRoce ? "Ethernet" : "InfiniBand";
}

double rate_gbps(const models::Nic& nic) { return nic.port_rate.in_gbps(); }

void check_ibstat(const NodeEvidence& node,
                  const Evidence<IbstatOutput>& log,
                  const models::NodeSpec& design,
                  std::vector<Finding>& out) {
  bool all = true;
  for (const models::Nic& nic : design.nics) {
    const std::string element = node.name + "." + nic.name;
    const auto ca = std::find_if(log.output.cas.begin(), log.output.cas.end(),
                                 [&](const IbstatCa& c) { return c.name == nic.name; });
    if (ca == log.output.cas.end()) {
      all = false;
      out.push_back({CheckLayer::kLinkState, "port state", element, log.file,
                     "CA '" + nic.name + "' listed", "absent", Verdict::kFail,
                     cost(nic, Severity::kCritical),
                     "the driver does not see the NIC: check lspci, dmesg (mlx5_core) and "
                     "the firmware (mlxfwmanager)"});
      continue;
    }
    const double want = rate_gbps(nic);
    for (const IbstatPort& port : ca->ports) {
      const std::string expected =
          fmt::format("Active, LinkUp, {:g} Gb/s, {}", want, link_layer(nic));
      const std::string measured =
          fmt::format("{}, {}, {:g} Gb/s, {}", port.state, port.physical_state, port.rate_gbps,
                      port.link_layer);
      const bool up = port.state == "Active" && port.physical_state == "LinkUp";
      const bool rate = std::abs(port.rate_gbps - want) < 0.5;
      const bool layer = port.link_layer == link_layer(nic);
      if (up && rate && layer) {
        continue;
      }
      all = false;
      Finding f{CheckLayer::kLinkState,
                "port state",
                element,
                parse::place(log.file, port.line),
                expected,
                measured,
                Verdict::kFail,
                cost(nic, up ? Severity::kMajor : Severity::kCritical),
                ""};
      if (!up) {
        f.next =
            "the port is not up: check the cable and the switch port (ibportstate, the "
            "switch's port counters) and, on InfiniBand, that a subnet manager runs";
      } else if (!rate) {
        f.next = fmt::format(
            "the port trained at {:g} instead of {:g} Gb/s: check the cable "
            "type and length, reseat it, and compare the switch port's speed "
            "(mlxlink -d {})",
            port.rate_gbps, want, nic.name);
      } else {
        f.next = fmt::format(
            "the port runs {} instead of {}: set the port type (mlxconfig "
            "LINK_TYPE_P1) or correct the design",
            port.link_layer, link_layer(nic));
      }
      out.push_back(std::move(f));
    }
  }
  if (all) {
    out.push_back({CheckLayer::kLinkState, "port state", node.name, log.file,
                   fmt::format("{} NICs Active, LinkUp at their designed rate", design.nics.size()),
                   "as designed", Verdict::kPass, Severity::kNone, ""});
  }
}

void check_ibdev2netdev(const NodeEvidence& node,
                        const Evidence<Ibdev2netdevOutput>& log,
                        const models::NodeSpec& design,
                        std::vector<Finding>& out) {
  bool all = true;
  for (const models::Nic& nic : design.nics) {
    const std::string element = node.name + "." + nic.name;
    const auto port = std::find_if(log.output.ports.begin(), log.output.ports.end(),
                                   [&](const Ibdev2netdevPort& p) { return p.device == nic.name; });
    if (port == log.output.ports.end()) {
      all = false;
      out.push_back({CheckLayer::kLinkState, "network device", element, log.file,
                     nic.name + " mapped to a network device", "absent", Verdict::kFail,
                     cost(nic, Severity::kCritical),
                     "the verbs device has no network device: check the driver (mlx5_core, "
                     "mlx5_ib) and ip link"});
      continue;
    }
    const bool active = !port->details || port->details->port_state == "ACTIVE";
    if (port->netdev_up && active) {
      continue;
    }
    all = false;
    out.push_back({CheckLayer::kLinkState, "network device", element,
                   parse::place(log.file, port->line),
                   port->netdev + " Up" + (port->details ? ", port ACTIVE" : ""),
                   port->netdev + (port->netdev_up ? " Up" : " Down") +
                       (port->details ? ", port " + port->details->port_state : ""),
                   Verdict::kFail, cost(nic, Severity::kCritical),
                   "bring the interface up (ip link set " + port->netdev +
                       " up) and check the port on the switch"});
  }
  if (all) {
    out.push_back({CheckLayer::kLinkState, "network device", node.name, log.file,
                   fmt::format("{} NICs with their network device up", design.nics.size()),
                   "as designed", Verdict::kPass, Severity::kNone, ""});
  }
}

}  // namespace

void check_link_state(const NodeEvidence& node,
                      const models::NodeSpec& design,
                      std::vector<Finding>& out) {
  if (!node.ibstat && !node.ibdev2netdev) {
    out.push_back({CheckLayer::kLinkState, "port state", node.name, "", "", "", Verdict::kSkipped,
                   Severity::kNone,
                   "no ibstat or ibdev2netdev of this node (ibstat/" + node.name + ".txt)"});
    return;
  }
  if (node.ibstat) {
    check_ibstat(node, *node.ibstat, design, out);
  }
  if (node.ibdev2netdev) {
    check_ibdev2netdev(node, *node.ibdev2netdev, design, out);
  }
}

}  // namespace railsim::calibrate::check
