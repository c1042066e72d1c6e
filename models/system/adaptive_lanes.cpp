// File: models/system/adaptive_lanes.cpp
// Adaptive lanes (adaptive_lanes.hpp): the digit rule a lane follows up through the tiers and its
// mirror down, and the number of lanes a pair of leaves gets.
#include "models/system/adaptive_lanes.hpp"

#include "models/system/system_links.hpp"
#include "sim/assert.hpp"

#include <algorithm>

namespace railsim::models {

std::size_t LaneWalk::pick(std::size_t here, const std::vector<NextHop>& choices) {
  const FabricSwitch& from = fabric_.switch_at(here);
  const int tier = fabric_.switch_at(choices.front().next).tier;
  if (tier > from.tier) {
    RAILSIM_ASSERT(from.fan_out >= 1, "a switch with uplinks reaches at least one switch");
    const std::size_t taken = digit_ % choices.size();
    digit_ /= static_cast<std::uint64_t>(from.fan_out);
    climbed_[static_cast<std::size_t>(from.tier)] = {true, from.position, digit_};
    return taken;
  }
  const Climbed& up = climbed_[static_cast<std::size_t>(tier)];
  if (!up.done) {
    return digit_ % choices.size();
  }
  // The mirror: the switch at the position climbed through (arriving at a leaf, the target is
  // the one leaf there is), over the cable of the rank climbed.
  const auto mirrors = [&](const NextHop& hop) {
    return tier == 0 || fabric_.switch_at(hop.next).position == up.position;
  };
  const auto count =
      static_cast<std::uint64_t>(std::count_if(choices.begin(), choices.end(), mirrors));
  if (count == 0) {
    return up.digit % choices.size();
  }
  std::uint64_t rank = up.digit % count;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (mirrors(choices[i]) && rank-- == 0) {
      return i;
    }
  }
  RAILSIM_UNREACHABLE("a mirror cable was counted");
}

int adaptive_lane_count(const SystemLinks& links, std::size_t from, std::size_t to) {
  if (links.pod_of_leaf(from) == links.pod_of_leaf(to)) {
    return static_cast<int>(links.fabric.out_degree(from));
  }
  return links.fabric.switch_at(from).fan_out * links.spine_uplinks;
}

}  // namespace railsim::models
