// File: models/collective/collective_types.hpp
// The vocabulary of NCCL collectives: the operation, the algorithm that runs it and the protocol
// that moves its bytes (nccl:src/include/device.h, src/graph/tuning.cc), with the names users type
// (NCCL_ALGO and NCCL_PROTO spell them the same way, lower case here). AllToAll, SendRecv, Gather
// and Scatter are nccl-tests' point-to-point programs: grouped ncclSend/ncclRecv calls, which NCCL
// runs on its p2p channels with no algorithm of its tuner.
#pragma once

#include "sim/bytes.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::models {

enum class CollectiveOp {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kSendRecv,
  kGather,
  kScatter
};

enum class Algorithm { kRing, kTree, kNvls, kNvlsTree, kPat, kCollNetDirect, kCollNetChain };

enum class Protocol { kLl, kLl128, kSimple };

inline constexpr std::array kCollectiveOps = {
    CollectiveOp::kAllReduce, CollectiveOp::kAllGather, CollectiveOp::kReduceScatter,
    CollectiveOp::kBroadcast, CollectiveOp::kReduce,    CollectiveOp::kAllToAll,
    CollectiveOp::kSendRecv,  CollectiveOp::kGather,    CollectiveOp::kScatter};
inline constexpr std::array kAlgorithms = {
    Algorithm::kRing, Algorithm::kTree,          Algorithm::kNvls,        Algorithm::kNvlsTree,
    Algorithm::kPat,  Algorithm::kCollNetDirect, Algorithm::kCollNetChain};
inline constexpr std::array kProtocols = {Protocol::kLl, Protocol::kLl128, Protocol::kSimple};

constexpr bool is_point_to_point(CollectiveOp op) {
  return op == CollectiveOp::kAllToAll || op == CollectiveOp::kSendRecv ||
         op == CollectiveOp::kGather || op == CollectiveOp::kScatter;
}

// Broadcast and Reduce run the ring as a chain (nccl:src/device/broadcast.h, reduce.h): the data
// crosses n - 1 hops once, from the root (Broadcast) or towards it (Reduce), each piece sent at
// one step only; the others send every piece at every step of the ring.
constexpr bool is_ring_chain(CollectiveOp op) {
  return op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce;
}

// An all-to-all-v's bytes: what rank i of an n-rank communicator sends rank j, at [i x n + j]
// (the diagonal is a copy in the rank's own memory).
using PeerBytes = std::vector<sim::Bytes>;

// CollNet: NCCL's reductions in the network's switches (InfiniBand SHARP), Direct or Chain.
constexpr bool is_collnet(Algorithm algorithm) {
  return algorithm == Algorithm::kCollNetDirect || algorithm == Algorithm::kCollNetChain;
}

// NCCL_ALGO: the algorithms NCCL's tuner may choose among, as NCCL_ALGO lists them; empty, every
// one. One algorithm is the set of it, as NCCL_ALGO=Ring forces the ring.
class AlgorithmSet {
 public:
  constexpr AlgorithmSet() = default;

  constexpr AlgorithmSet(Algorithm algorithm) : bits_(bit(algorithm)) {}

  constexpr AlgorithmSet(std::optional<Algorithm> algorithm)
      : bits_(algorithm ? bit(*algorithm) : 0U) {}

  constexpr AlgorithmSet(Algorithm first, Algorithm second) : bits_(bit(first) | bit(second)) {}

  constexpr bool empty() const { return bits_ == 0U; }

  // Whether the set names algorithms, each of them one of `other`'s.
  constexpr bool within(AlgorithmSet other) const {
    return !empty() && (bits_ & ~other.bits_) == 0U;
  }

  // The algorithms in kAlgorithms order, every one when the set is empty.
  std::vector<Algorithm> list() const {
    std::vector<Algorithm> out;
    for (const Algorithm algorithm : kAlgorithms) {
      if (empty() || (bits_ & bit(algorithm)) != 0U) {
        out.push_back(algorithm);
      }
    }
    return out;
  }

  // Both sets' algorithms (an empty set stays every one).
  constexpr AlgorithmSet operator|(AlgorithmSet other) const {
    return empty() || other.empty() ? AlgorithmSet() : AlgorithmSet(bits_ | other.bits_);
  }

  // The set's algorithms (every one when empty) that are not in `other`, which names some; empty
  // when none is left.
  constexpr AlgorithmSet except(AlgorithmSet other) const {
    return AlgorithmSet((empty() ? kAll : bits_) & ~other.bits_);
  }

  constexpr bool operator==(const AlgorithmSet&) const = default;

 private:
  static constexpr unsigned kAll = (1U << kAlgorithms.size()) - 1U;

  constexpr explicit AlgorithmSet(unsigned bits) : bits_(bits) {}

  static constexpr unsigned bit(Algorithm algorithm) {
    return 1U << static_cast<unsigned>(algorithm);
  }

  unsigned bits_ = 0U;
};

// CollNet as NCCL_COLLNET_ENABLE=1 offers it: Direct or Chain, whichever NCCL's tuner prices lower
// ("collnet" on the command line and in scenario files; NCCL_ALGO spells it
// CollNetDirect,CollNetChain).
inline constexpr AlgorithmSet kCollNet{Algorithm::kCollNetDirect, Algorithm::kCollNetChain};

constexpr bool is_gather_scatter(CollectiveOp op) {
  return op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter;
}

// "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv",
// "gather", "scatter": the nccl-tests program stems.
constexpr std::string_view op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return "all_reduce";
    case CollectiveOp::kAllGather:
      return "all_gather";
    case CollectiveOp::kReduceScatter:
      return "reduce_scatter";
    case CollectiveOp::kBroadcast:
      return "broadcast";
    case CollectiveOp::kReduce:
      return "reduce";
    case CollectiveOp::kAllToAll:
      return "alltoall";
    case CollectiveOp::kSendRecv:
      return "sendrecv";
    case CollectiveOp::kGather:
      return "gather";
    case CollectiveOp::kScatter:
      return "scatter";
  }
  return "?";
}

// "ring", "tree", "nvls", "nvlstree", "pat", "collnetdirect", "collnetchain" (NCCL_ALGO's
// CollnetDirect and CollnetChain).
constexpr std::string_view algorithm_name(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kRing:
      return "ring";
    case Algorithm::kTree:
      return "tree";
    case Algorithm::kNvls:
      return "nvls";
    case Algorithm::kNvlsTree:
      return "nvlstree";
    case Algorithm::kPat:
      return "pat";
    case Algorithm::kCollNetDirect:
      return "collnetdirect";
    case Algorithm::kCollNetChain:
      return "collnetchain";
  }
  return "?";
}

// "auto" for every algorithm, "collnet" for both CollNets, else the names joined by commas.
inline std::string algorithm_set_text(const AlgorithmSet& set) {
  if (set.empty()) {
    return "auto";
  }
  if (set == kCollNet) {
    return "collnet";
  }
  std::string text;
  for (const Algorithm algorithm : set.list()) {
    text += (text.empty() ? "" : ",") + std::string(algorithm_name(algorithm));
  }
  return text;
}

// "ll", "ll128", "simple".
constexpr std::string_view protocol_name(Protocol protocol) {
  switch (protocol) {
    case Protocol::kLl:
      return "ll";
    case Protocol::kLl128:
      return "ll128";
    case Protocol::kSimple:
      return "simple";
  }
  return "?";
}

}  // namespace railsim::models
