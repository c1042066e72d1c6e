// File: models/system/fabric_summary.cpp
// The fabric's figures, read off the links a System builds: a fault-free build of the same spec
// gives the designed rates, the network at hand the counts and the faults.
#include "models/system/fabric_summary.hpp"

#include "models/fabric/wire.hpp"
#include "sim/assert.hpp"
#include "sim/simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <string_view>

namespace railsim::models {

sim::Bandwidth rail_bisection(const LeafSpineShape& shape) {
  RAILSIM_ASSERT(shape.nodes >= 0 && shape.nodes_per_leaf >= 1 && shape.uplinks_per_leaf >= 0,
                 "rail_bisection: expected nodes >= 0, nodes_per_leaf >= 1, uplinks >= 0");
  const double port = shape.node_port.bytes_per_s;
  const double uplinks = shape.uplinks_per_leaf * shape.uplink.bytes_per_s;
  const int unit = shape.nodes_per_leaf;
  const int full_units = shape.nodes / unit;
  const int last = shape.nodes % unit;  // nodes of the partial last unit; 0 when there is none
  // g_u(b): unit of `size` nodes with b of them on side B, the spines on side A.
  auto unit_cost = [&](int size, int on_b) {
    return std::min(on_b * port, (size - on_b) * port + uplinks);
  };
  double best = std::numeric_limits<double>::infinity();
  // Every vertex: j full units and perhaps the partial one wholly on B, at most one unit split.
  for (const int half : {shape.nodes / 2, shape.nodes - shape.nodes / 2}) {
    for (int j = 0; j <= full_units; ++j) {
      for (int last_on_b = 0; last_on_b <= (last > 0 ? 1 : 0); ++last_on_b) {
        const int rest = half - j * unit - last_on_b * last;
        if (rest < 0) {
          continue;
        }
        const double whole = j * unit_cost(unit, unit) + last_on_b * unit_cost(last, last);
        if (rest == 0) {
          best = std::min(best, whole);
        }
        if (rest > 0 && rest < unit && j < full_units) {
          best = std::min(best, whole + unit_cost(unit, rest));
        }
        if (rest > 0 && rest < last && last_on_b == 0) {
          best = std::min(best, whole + unit_cost(last, rest));
        }
      }
    }
  }
  RAILSIM_ASSERT(best < std::numeric_limits<double>::infinity(), "some split always exists");
  return sim::Bandwidth{best};
}

namespace {

// `count` units of `nodes` nodes each, `on_b` of each unit's nodes on side B.
struct UnitGroup {
  int nodes = 0;
  int on_b = 0;
  int count = 0;
};

// One pod's part of a three-tier cut with the cores on side A (three_tier_bisection, step 2).
class PodCut {
 public:
  explicit PodCut(const ThreeTierShape& shape)
      : rails_(shape.rails),
        port_(shape.node_port.bytes_per_s),
        uplinks_(shape.uplinks_per_leaf * shape.leaf_uplink.bytes_per_s),
        core_(shape.spines_per_pod * shape.uplinks_per_spine * shape.spine_uplink.bytes_per_s) {}

  double operator()(std::initializer_list<UnitGroup> units) const {
    double spines_on_a = 0.0;
    double spines_on_b = core_;
    for (const UnitGroup& u : units) {
      spines_on_a += u.count * leaves(u.nodes, u.on_b);
      spines_on_b += u.count * leaves(u.nodes, u.nodes - u.on_b);
    }
    return std::min(spines_on_a, spines_on_b);
  }

 private:
  // A unit's R leaves with the spines on side A: each stays on A and cuts the ports of the
  // nodes on B, or joins B and cuts the other ports and its uplinks.
  double leaves(int nodes, int on_b) const {
    return rails_ * std::min(on_b * port_, (nodes - on_b) * port_ + uplinks_);
  }

  int rails_;
  double port_;
  double uplinks_;
  double core_;
};

}  // namespace

sim::Bandwidth three_tier_bisection(const ThreeTierShape& shape) {
  RAILSIM_ASSERT(shape.nodes >= 1 && shape.nodes_per_leaf >= 1 && shape.units_per_pod >= 1 &&
                     shape.rails >= 1 && shape.spines_per_pod >= 1 &&
                     shape.uplinks_per_leaf % shape.spines_per_pod == 0,
                 "three_tier_bisection: expected a leaf's uplinks spread evenly over its spines");
  const PodCut pod(shape);
  const int unit = shape.nodes_per_leaf;
  const int per_pod = shape.units_per_pod;
  const int units = (shape.nodes + unit - 1) / unit;
  const int last = shape.nodes % unit;  // nodes of the partial last unit; 0 when there is none
  const int pods = (units + per_pod - 1) / per_pod;
  const int last_pod_whole = units - (pods - 1) * per_pod - (last > 0 ? 1 : 0);  // full units
  // Where the one unit split between the sides lies: nowhere, in one of the full pods before the
  // last, in a full unit of the last pod, or in the last pod's partial unit. Then every count of
  // whole units on B in the last pod and in the split unit's pod; the plain full pods take the
  // rest as step 3 says.
  enum class Split { kNone, kOtherPod, kLastPod, kPartialUnit };
  double best = std::numeric_limits<double>::infinity();
  for (const int half : {shape.nodes / 2, shape.nodes - shape.nodes / 2}) {
    for (const Split split :
         {Split::kNone, Split::kOtherPod, Split::kLastPod, Split::kPartialUnit}) {
      if ((split == Split::kOtherPod && pods < 2) || (split == Split::kPartialUnit && last < 2) ||
          (split == Split::kLastPod && last_pod_whole < 1)) {
        continue;
      }
      for (int last_on_b = 0; last_on_b <= (last > 0 && split != Split::kPartialUnit ? 1 : 0);
           ++last_on_b) {
        // The split unit takes what whole units (multiples of `unit`) leave over.
        const int rest = half - last_on_b * last;
        const int r = split == Split::kNone ? 0 : rest % unit;
        const int split_size = split == Split::kPartialUnit ? last : unit;
        if (rest < 0 || (split == Split::kNone ? rest % unit != 0 : r < 1 || r >= split_size)) {
          continue;
        }
        const int whole_on_b = (rest - r) / unit;
        const int last_pod_free = last_pod_whole - (split == Split::kLastPod ? 1 : 0);
        const int others = pods - 1 - (split == Split::kOtherPod ? 1 : 0);  // plain full pods
        for (int in_last = 0; in_last <= last_pod_free; ++in_last) {
          for (int in_host = 0; in_host <= (split == Split::kOtherPod ? per_pod - 1 : 0);
               ++in_host) {
            const int spread = whole_on_b - in_last - in_host;  // over the plain full pods
            if (spread < 0 || spread > others * per_pod) {
              continue;
            }
            const int full_pods_on_b = spread / per_pod;
            const int remainder = spread % per_pod;
            double cut = full_pods_on_b * pod({{unit, unit, per_pod}}) +
                         pod({{unit, unit, remainder}, {unit, 0, per_pod - remainder}});
            if (split == Split::kOtherPod) {
              cut += pod({{unit, unit, in_host}, {unit, r, 1}, {unit, 0, per_pod - 1 - in_host}});
            }
            const int partial_on_b = split == Split::kPartialUnit ? r : last_on_b * last;
            cut += pod({{unit, unit, in_last},
                        {unit, r, split == Split::kLastPod ? 1 : 0},
                        {unit, 0, last_pod_free - in_last},
                        {last, partial_on_b, last > 0 ? 1 : 0}});
            best = std::min(best, cut);
          }
        }
      }
    }
  }
  RAILSIM_ASSERT(best < std::numeric_limits<double>::infinity(), "some split always exists");
  return sim::Bandwidth{best};
}

FabricSummary summarize(const System& system, const sim::FlowNetwork& network) {
  const SystemSpec& spec = system.spec();
  const FabricSpec& fabric = spec.fabric;
  sim::Simulator simulator;
  sim::FlowNetwork designed_network(simulator);
  const System designed(spec, designed_network);
  RAILSIM_ASSERT(network.link_count() == designed_network.link_count(),
                 "summarize: the network must hold the System's links and no others");

  FabricSummary s;
  const bool three_tiers = fabric.tiers == 3;
  s.tiers = fabric.tiers;
  s.nodes = spec.nodes;
  s.rails = static_cast<int>(system.compute_nics().size());
  s.nodes_per_leaf = fabric.nodes_per_leaf;
  s.leaves = system.leaf_count();
  s.scalable_units = s.leaves / s.rails;
  s.spines = fabric.spines;
  if (three_tiers) {
    s.units_per_pod = fabric.units_per_pod;
    s.pods = (s.scalable_units + s.units_per_pod - 1) / s.units_per_pod;
    s.spines_per_pod = fabric.spines;
    s.spines = s.pods * s.spines_per_pod;
    s.cores = fabric.cores;
    s.requested_core_oversubscription = fabric.core_oversubscription;
  }
  s.line_rate = fabric.port_rate;
  s.wire_efficiency = wire_efficiency(fabric.transport, fabric.mtu);
  s.requested_oversubscription = fabric.oversubscription;
  s.total_links = static_cast<int>(network.link_count());

  // Only the asserts below look links up by name, so the scan runs only where they are on.
  [[maybe_unused]] auto has_link = [&](const std::string& name) {
    for (std::uint32_t l = 0; l < designed_network.link_count(); ++l) {
      if (designed_network.link(sim::LinkId{l}).name == name) {
        return true;
      }
    }
    return false;
  };
  // NIC ports and cables between switches, at their designed rates. The designed copy numbers
  // its links as `system` does, so the System's own classification applies to both.
  s.node_port_rate = sim::kUnboundedBandwidth;
  s.port_rate = sim::kUnboundedBandwidth;
  s.core_port_rate = three_tiers ? sim::kUnboundedBandwidth : sim::Bandwidth{};
  for (std::uint32_t l = 0; l < network.link_count(); ++l) {
    const sim::Bandwidth rate = designed_network.link(sim::LinkId{l}).capacity;
    if (system.is_node_port_link(sim::LinkId{l})) {
      ++s.node_port_links;
      s.node_port_rate = std::min(s.node_port_rate, rate);
    } else if (system.is_spine_link(sim::LinkId{l})) {
      ++s.leaf_spine_links;
      s.port_rate = std::min(s.port_rate, rate);
    } else if (system.is_core_link(sim::LinkId{l})) {
      ++s.spine_core_links;
      s.core_port_rate = std::min(s.core_port_rate, rate);
    }
  }
  s.node_links = s.total_links - s.node_port_links - s.leaf_spine_links - s.spine_core_links;
  s.uplinks_per_leaf = s.leaf_spine_links / (2 * s.leaves);
  RAILSIM_ASSERT(s.uplinks_per_leaf >= 1 && s.leaf_spine_links == 2 * s.leaves * s.uplinks_per_leaf,
                 "every leaf has the same uplinks, each a pair of links");
  s.uplinks_per_spine = s.spine_core_links / (2 * s.spines);
  RAILSIM_ASSERT(s.spine_core_links == 2 * s.spines * s.uplinks_per_spine &&
                     (s.uplinks_per_spine >= 1) == three_tiers,
                 "with three tiers every spine has the same uplinks, each a pair of links");

  // Uplink `port` of a leaf goes to spine port % spines of its pod, uplink `port` of a spine to
  // core port % cores (fabric_spec.hpp).
  const int spines_of_leaf = fabric.spines;
  s.uplinks_to_spine.assign(static_cast<std::size_t>(spines_of_leaf), 0);
  for (int port = 0; port < s.uplinks_per_leaf; ++port) {
    RAILSIM_ASSERT(has_link(fmt::format("leaf0>spine{}.{}", port % spines_of_leaf, port)),
                   "uplinks are spread round-robin over the spines");
    ++s.uplinks_to_spine[static_cast<std::size_t>(port % spines_of_leaf)];
  }
  s.uplinks_to_core.assign(static_cast<std::size_t>(s.cores), 0);
  for (int port = 0; port < s.uplinks_per_spine; ++port) {
    RAILSIM_ASSERT(has_link(fmt::format("spine0>core{}.{}", port % s.cores, port)),
                   "spine uplinks are spread round-robin over the cores");
    ++s.uplinks_to_core[static_cast<std::size_t>(port % s.cores)];
  }

  s.leaf_downlink = s.node_port_rate * s.nodes_per_leaf;
  s.leaf_uplink = s.port_rate * s.uplinks_per_leaf;
  s.oversubscription = s.leaf_downlink.bytes_per_s / s.leaf_uplink.bytes_per_s;
  if (!three_tiers) {
    s.bisection = rail_bisection({s.nodes, s.nodes_per_leaf, s.uplinks_per_leaf, s.node_port_rate,
                                  s.port_rate}) *
                  s.rails;
  } else {
    s.downlinks_per_spine = s.rails * s.units_per_pod * s.uplinks_to_spine.front();
    s.spine_downlink = s.port_rate * s.downlinks_per_spine;
    s.spine_uplink = s.core_port_rate * s.uplinks_per_spine;
    s.core_oversubscription = s.spine_downlink.bytes_per_s / s.spine_uplink.bytes_per_s;
    s.bisection = three_tier_bisection({s.nodes, s.nodes_per_leaf, s.units_per_pod, s.rails,
                                        s.uplinks_per_leaf, s.spines_per_pod, s.uplinks_per_spine,
                                        s.node_port_rate, s.port_rate, s.core_port_rate});
  }

  for (std::uint32_t l = 0; l < network.link_count(); ++l) {
    const sim::LinkSpec& now = network.link(sim::LinkId{l});
    const sim::LinkSpec& built = designed_network.link(sim::LinkId{l});
    RAILSIM_ASSERT(now.name == built.name, "summarize: the network holds the System's links");
    if (now.capacity != built.capacity) {
      s.degraded.push_back({now.name, now.capacity, built.capacity});
    }
  }
  return s;
}

}  // namespace railsim::models
