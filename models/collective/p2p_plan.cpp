// File: models/collective/p2p_plan.cpp
// The messages of the point-to-point ops, and the NICs each crosses between nodes.
#include "models/collective/p2p_plan.hpp"

#include "models/collective/nccl_tuner_tables.hpp"
#include "sim/assert.hpp"
#include "sim/ceil_div.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace railsim::models {
namespace {

using sim::at;

// The p2p operations a channel runs at once (NCCL_MAX_DEV_WORK_P2P_PER_BATCH,
// nccl:src/include/device.h).
constexpr int kP2pPerBatch = 8;

// The hop from rank `src` to rank `dst` of `comm` over the NICs of `round`.
RingHop p2p_hop(const System& system,
                const Communicator& comm,
                const CommNics& nic_of,
                bool pxn,
                int src,
                int dst,
                int round) {
  RingHop hop;
  hop.src = src;
  hop.dst = dst;
  const int node = comm.node_of(src);
  hop.inter_node = node != comm.node_of(dst);
  if (!hop.inter_node) {
    return hop;
  }
  const int from_gpu = comm.gpu_of(src);
  const int to_gpu = comm.gpu_of(dst);
  hop.recv_nic = nic_of.nic(comm.node_of(dst), to_gpu, round);
  hop.send_nic = nic_of.nic(node, from_gpu, round);
  if (pxn && to_gpu != from_gpu) {
    // The local GPU with the receiver's device index relays, if NVLink reaches it and it reaches
    // its NIC with GPUDirect RDMA.
    const int rail_nic = nic_of.nic(node, to_gpu, round);
    if (pxn_can_relay(system, comm.system_node(node), comm.system_gpu(from_gpu),
                      comm.system_gpu(to_gpu), rail_nic)) {
      hop.send_nic = rail_nic;
      hop.relay_gpu = to_gpu;
    }
  }
  return hop;
}

// The bytes one rank sends each peer: the whole size (SendRecv) or size / n rounded down (the
// others: nccl-tests sizes its buffers in whole elements per peer).
sim::Bytes bytes_per_peer(CollectiveOp op, sim::Bytes size, int ranks) {
  RAILSIM_ASSERT(is_point_to_point(op) && ranks > 0, "a point-to-point op over some ranks");
  return op == CollectiveOp::kSendRecv ? size : sim::bytes(size.count / ranks);
}

void check_matrix(const PeerBytes& peer_bytes, int ranks) {
  if (peer_bytes.size() != static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks)) {
    throw sim::InputError(
        fmt::format("alltoall over {} ranks: expected {} x {} bytes per peer, got {}", ranks, ranks,
                    ranks, peer_bytes.size()));
  }
  for (const sim::Bytes bytes : peer_bytes) {
    if (bytes.count < 0) {
      throw sim::InputError(
          fmt::format("alltoall: {} bytes for a peer, expected at least 0", bytes.count));
    }
  }
}

// The p2p channels NCCL asks for a network peer over all of a GPU's `nics` NICs: one a NIC at
// least, more to carry their bandwidth (nccl:src/graph/paths.cc ncclTopoGetNchannels).
int net_peer_channels(double nic_bytes_per_s, int nics) {
  RAILSIM_ASSERT(nics > 0, "a GPU with a NIC");
  return std::max(nics,
                  static_cast<int>(std::ceil(nic_bytes_per_s * nics / kP2pChannelNetBytesPerS)));
}

}  // namespace

int p2p_net_channels(double nic_bytes_per_s, int nics) {
  return sim::ceil_div(net_peer_channels(nic_bytes_per_s, nics), nics);
}

int p2p_channels_per_peer(const TuningTopology& topology,
                          int comm_channels,
                          std::optional<int> per_net_peer) {
  RAILSIM_ASSERT(comm_channels > 0, "a communicator with channels");
  RAILSIM_ASSERT(!per_net_peer || *per_net_peer > 0, "a network peer asks for a channel");
  int per_peer = std::numeric_limits<int>::max();
  if (topology.nodes > 1) {
    per_peer =
        per_net_peer.value_or(net_peer_channels(topology.nic_bw_GBps * 1e9, topology.nics_per_gpu));
  }
  if (topology.gpus_per_node > 1) {
    const int links = static_cast<int>(
        std::lround(topology.intra_bw_GBps / nccl::nvlink_model_rate_GBps(topology.arch)));
    per_peer = std::min(per_peer, topology.intra_nvlink ? 2 * std::max(1, links) : 2);
  }
  if (per_peer == std::numeric_limits<int>::max()) {
    return 1;  // a communicator of one rank has no peer
  }
  per_peer = static_cast<int>(std::bit_ceil(static_cast<unsigned>(per_peer)));
  const auto pool = static_cast<int>(std::bit_ceil(static_cast<unsigned>(comm_channels)));
  if (topology.nodes == 1 || per_net_peer) {
    return std::min(per_peer, pool);
  }
  const int batches = sim::ceil_div(nccl::ranks_of(topology), kP2pPerBatch);
  while (per_peer > 1 && per_peer * batches > pool) {
    per_peer /= 2;
  }
  return per_peer;
}

P2pPlan make_p2p_plan(const System& system,
                      CollectiveOp op,
                      sim::Bytes size,
                      const Communicator& comm,
                      bool pxn,
                      int net_channels,
                      const PeerBytes* peer_bytes) {
  if (!is_point_to_point(op)) {
    throw sim::InputError(
        fmt::format("p2p plan: {}, expected alltoall, sendrecv, gather or scatter", op_name(op)));
  }
  check_fits(system, comm, std::nullopt);
  const int ranks = comm.ranks();
  const CommNics nic_of(system, comm);
  P2pPlan plan;
  plan.op = op;
  plan.net_channels = net_channels;
  if (peer_bytes != nullptr) {
    RAILSIM_ASSERT(op == CollectiveOp::kAllToAll,
                   "start_collective refuses bytes per peer for other ops");
    check_matrix(*peer_bytes, ranks);
  }
  const sim::Bytes per_peer = bytes_per_peer(op, size, ranks);
  const auto bytes = [&](int src, int dst) {
    return peer_bytes != nullptr ? (*peer_bytes)[at(src) * at(ranks) + at(dst)] : per_peer;
  };
  sim::Bytes largest;
  // A message between nodes goes out over every NIC of the GPU that posts it, an equal share on
  // each (the first ones a byte larger where the size does not divide): NCCL's p2p channels to
  // a peer take that GPU's NICs in turn.
  const auto send = [&](int src, int dst) {
    const sim::Bytes b = bytes(src, dst);
    if (src == dst || b.count == 0) {
      return;
    }
    largest = std::max(largest, b);
    const RingHop first = p2p_hop(system, comm, nic_of, pxn, src, dst, 0);
    const int poster = first.relay_gpu >= 0 ? first.relay_gpu : comm.gpu_of(src);
    const std::int64_t parts =
        first.inter_node ? static_cast<std::int64_t>(nic_of.nics(comm.node_of(src), poster).size())
                         : 1;
    for (std::int64_t j = 0; j < parts; ++j) {
      const sim::Bytes share = sim::bytes(b.count / parts + (j < b.count % parts ? 1 : 0));
      if (share.count > 0) {
        plan.messages.push_back(
            {j == 0 ? first : p2p_hop(system, comm, nic_of, pxn, src, dst, static_cast<int>(j)),
             share});
      }
    }
  };
  constexpr int kRoot = 0;
  for (int rank = 0; rank < ranks; ++rank) {
    switch (op) {
      case CollectiveOp::kSendRecv:
        send(rank, (rank + 1) % ranks);
        break;
      case CollectiveOp::kGather:
        send(rank, kRoot);
        break;
      case CollectiveOp::kScatter:
        send(kRoot, rank);
        break;
      default:  // AllToAll
        for (int k = 1; k < ranks; ++k) {
          send(rank, (rank + k) % ranks);
        }
    }
  }
  plan.protocol = (peer_bytes != nullptr ? largest : per_peer) < kP2pLlThreshold
                      ? Protocol::kLl
                      : Protocol::kSimple;
  return plan;
}

}  // namespace railsim::models
