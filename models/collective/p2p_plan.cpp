// File: models/collective/p2p_plan.cpp
// The messages of the point-to-point ops, and the NICs each crosses between nodes.
#include "models/collective/p2p_plan.hpp"

#include "sim/assert.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace railsim::models {
namespace {

using sim::at;

// The hop from rank `src` to rank `dst` of `comm`; `nic_of` as comm_gpu_nics gives it.
RingHop p2p_hop(const System& system,
                const Communicator& comm,
                const std::vector<std::vector<int>>& nic_of,
                bool pxn,
                int src,
                int dst) {
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
  hop.recv_nic = nic_of[at(comm.node_of(dst))][at(to_gpu)];
  hop.send_nic = nic_of[at(node)][at(from_gpu)];
  if (pxn && to_gpu != from_gpu) {
    // The local GPU with the receiver's device index relays, if NVLink reaches it and it reaches
    // its NIC with GPUDirect RDMA.
    const int rail_nic = nic_of[at(node)][at(to_gpu)];
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

}  // namespace

int p2p_net_channels(double nic_bytes_per_s) {
  return std::max(1, static_cast<int>(std::ceil(nic_bytes_per_s / kP2pChannelNetBytesPerS)));
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
  const std::vector<std::vector<int>> nic_of = comm_gpu_nics(system, comm);
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
  const auto send = [&](int src, int dst) {
    const sim::Bytes b = bytes(src, dst);
    if (src != dst && b.count > 0) {
      plan.messages.push_back({p2p_hop(system, comm, nic_of, pxn, src, dst), b});
      largest = std::max(largest, b);
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
