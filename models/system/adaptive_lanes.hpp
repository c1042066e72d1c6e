// File: models/system/adaptive_lanes.hpp
// Adaptive routing as a System models it: a transfer between leaves split evenly over L lanes,
// each a fixed path chosen switch by switch among the equal-cost next hops (fabric_graph.hpp),
// so that every hop carries an even share. System::routes() returns the lanes; ECMP's single
// hashed path is ecmp.hpp. Internal to models/system.
#pragma once

#include "models/system/fabric_graph.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace railsim::models {

struct SystemLinks;

// Lane l (0 <= l < L) starts with digit d = l. Climbing out of a switch whose n equal-cost
// uplinks (in port order) reach S distinct switches, it takes uplink d mod n and carries on with
// d / S; uplinks are spread round-robin, so uplink i is the (i / S)-th cable to switch i mod S,
// and d / S is that cable's rank. Descending into a tier it climbed out of, it mirrors the climb:
// it enters the switch at the same position (the same spine index, in the target pod) over cable
// d' mod m of the m equal-cost cables there, d' being the digit it carried out of that tier.
//
// L is the source leaf's uplink count k when the route turns at a spine (always with two tiers),
// and S x c between pods (S: the spines a leaf reaches, c: a spine's uplinks). With every cable
// up, the k leaf uplinks so carry lanes within one of each other (L / k each when k divides L),
// and between pods every one of the S x c spine-core cables of the source pod carries exactly
// one lane, as does every core-spine cable into the target pod and, in mirror image, the target
// leaf's cables: the even split per hop that adaptive routing approximates.
//
// Lanes are numbered over all cables; a cable that is down is not taken (the lanes that would
// have taken it share the others).
class LaneWalk {
 public:
  LaneWalk(const FabricGraph& fabric, std::uint64_t lane) : fabric_(fabric), digit_(lane) {}

  // The index among `choices` (the next hops from `here`, in port order) that the lane takes.
  std::size_t pick(std::size_t here, const std::vector<NextHop>& choices);

 private:
  // Where the lane left a tier going up, and the digit it carried on with.
  struct Climbed {
    bool done = false;
    int position = 0;
    std::uint64_t digit = 0;
  };

  const FabricGraph& fabric_;
  std::uint64_t digit_;
  std::array<Climbed, kSwitchTiers> climbed_{};
};

// L, above, for a transfer from leaf `from` to another leaf `to`.
int adaptive_lane_count(const SystemLinks& links, std::size_t from, std::size_t to);

}  // namespace railsim::models
