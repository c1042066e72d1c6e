// File: models/system/fabric_bisection.cpp
// The bisection closed forms of fabric_bisection.hpp, evaluated over the vertices their
// derivations leave: O(units) for two tiers, O(P^2) for three.
#include "models/system/fabric_bisection.hpp"

#include "sim/assert.hpp"
#include "sim/ceil_div.hpp"

#include <algorithm>
#include <initializer_list>
#include <limits>

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
  const int units = sim::ceil_div(shape.nodes, unit);
  const int last = shape.nodes % unit;  // nodes of the partial last unit; 0 when there is none
  const int pods = sim::ceil_div(units, per_pod);
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

}  // namespace railsim::models
