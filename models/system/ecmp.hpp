// File: models/system/ecmp.hpp
// EcmpHash: equal-cost multi-path routing as a System's switches do it. Each switch on the way
// picks one of its equal-cost next hops (fabric_graph.hpp) by a hash of the flow's identity, so
// one flow keeps one path and two flows may collide on a port while another stays idle: the
// cost of ECMP that adaptive routing (adaptive_lanes.hpp) avoids. Internal to models/system.
#pragma once

#include "models/system/system.hpp"
#include "sim/hash_mix.hpp"
#include "sim/index.hpp"

#include <cstddef>
#include <cstdint>

namespace railsim::models {

// The key starts from the fabric's seed, both ends' (node, compute NIC) and the queue pair, and
// each switch mixes its vertex index in before it takes the key modulo its choices, so that
// successive switches choose independently. The bits are the same on every platform
// (sim::hash_mix), and a change to them moves flows in every shipped output.
class EcmpHash {
 public:
  EcmpHash(std::uint64_t seed, Endpoint src, Endpoint dst, std::uint64_t queue_pair)
      : key_(sim::hash_mix(
            sim::hash_mix(sim::hash_mix(seed, sim::at(src.node) * 64 + sim::at(src.nic)),
                          sim::at(dst.node) * 64 + sim::at(dst.nic)),
            queue_pair)) {}

  // The index among `choices` (>= 1) equal-cost next hops that switch `vertex` takes.
  std::size_t pick(std::size_t vertex, std::size_t choices) {
    key_ = sim::hash_mix(key_, vertex);
    return key_ % choices;
  }

 private:
  std::uint64_t key_;
};

}  // namespace railsim::models
