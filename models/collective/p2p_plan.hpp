// File: models/collective/p2p_plan.hpp
// P2pPlan: nccl-tests' point-to-point programs as NCCL runs them, one group of ncclSend /
// ncclRecv calls (nccl-tests:src/alltoall.cu, sendrecv.cu, gather.cu, scatter.cu;
// nccl:src/enqueue.cc):
//   AllToAll  every rank sends size / n to each other rank;
//   SendRecv  rank r sends the whole size to rank r + 1 (mod n) while it receives from r - 1;
//   Gather    every rank sends size / n to the root, rank 0 (nccl-tests' default -r 0);
//   Scatter   the root sends size / n to every rank.
// AllToAll may instead be given a matrix of the bytes each rank sends each other (all-to-all-v,
// as a mixture-of-experts layer dispatches tokens: grouped ncclSend / ncclRecv of uneven sizes).
// A rank's share for itself is a copy inside its memory, which no link carries.
// Every message moves at once: nothing in a group waits for another message.
//
// A message between nodes leaves through a NIC of the sender's node and enters through the
// receiving GPU's own NIC. With PXN (NCCL_P2P_PXN_LEVEL 2, NCCL's default; `pxn` false is
// NCCL_PXN_DISABLE=1) NCCL sends it out of the NIC of the local GPU with the receiver's device
// index, over NVLink to that GPU first, so that traffic for a remote GPU stays on that GPU's rail
// (nccl:src/graph/paths.cc ncclTopoGetNetDev, fabric-facts §3.4); where that GPU has no NVLink
// to the sender or no GPUDirect RDMA to its NIC, the sender's own NIC serves. Without PXN the
// sender's own NIC always does, and a message between rails crosses the spine.
//
// NCCL opens several p2p channels per network peer, max(local NICs, ceil(NICs' GB/s / 14))
// (NCCL_P2P_PER_CHANNEL_NET_BW, nccl:src/graph/paths.cc, fabric-facts §2.5), fewer where the
// ranks outgrow its pool of channels (p2p_channels_per_peer), each a connection with its own
// queue pairs, which ECMP hashes apart, moving at most what NCCL sizes a channel for, and takes
// the posting GPU's NICs in turn (ncclTopoGetLocalNet): 4 on one 400G NIC, 1 on each of two 200G
// ports. A message between
// nodes is here one message per NIC of the GPU that posts it (nic_affinity.hpp), an equal share
// each, over that NIC's channels.
//
// Ranks and GPUs are the communicator's own; NIC indices are into System::compute_nics().
#pragma once

#include "models/collective/collective_types.hpp"
#include "models/collective/communicator.hpp"
#include "models/collective/nccl_tuning.hpp"
#include "models/collective/ring_layout.hpp"
#include "models/system/system.hpp"
#include "sim/bytes.hpp"

#include <optional>
#include <vector>

namespace railsim::models {

// Below this many bytes per peer NCCL sends a p2p message with LL, else Simple
// (NCCL_P2P_LL_THRESHOLD, nccl:src/enqueue.cc).
inline constexpr sim::Bytes kP2pLlThreshold = sim::kib(16);

// What one p2p channel moves over the network, payload bytes/s: NCCL sizes a peer's channels by
// it (NCCL_P2P_PER_CHANNEL_NET_BW = 14 GB/s, nccl:src/graph/paths.cc), and a channel runs no
// faster: cluster01's SendRecv on 10 nodes, 2 channels per peer, ran at 24.9-25.2 GB/s where
// its rings reach 48.9 (docs/validation.md).
inline constexpr double kP2pChannelNetBytesPerS = 14e9;

struct P2pMessage {
  RingHop hop;  // sender, receiver and, between nodes, the NICs and the PXN relay
  sim::Bytes bytes;
};

struct P2pPlan {
  CollectiveOp op = CollectiveOp::kAllToAll;
  Protocol protocol = Protocol::kSimple;
  int net_channels = 1;  // p2p channels per network peer and NIC
  std::vector<P2pMessage> messages;
};

// The p2p channels NCCL opens to a network peer on each NIC of a GPU with `nics` NICs of
// `nic_bytes_per_s` each.
int p2p_net_channels(double nic_bytes_per_s, int nics = 1);

// The p2p channels NCCL gives each peer of a communicator that runs `comm_channels` channels
// (NCCL 2.29, nccl:src/graph/paths.cc ncclTopoGetNchannels, ncclTopoComputeP2pChannels): the
// fewest any of its peers asks for (a network peer p2p_net_channels per NIC, an NVLink peer 2
// per link, a PCIe peer 2), rounded up to a power of two; across nodes, halved while a rank's
// peers, 8 to a channel (NCCL_MAX_DEV_WORK_P2P_PER_BATCH), would need more than the p2p channel
// pool, the comm's channels rounded up to a power of two. With one H100 per node on a 400G NIC
// (4 channels): 4 per peer on 2 nodes, 2 on 10. `per_net_peer` (NCCL_NCHANNELS_PER_NET_PEER)
// is what a network peer asks for in place of NCCL's count, and is then not halved, only held to
// the pool (nccl:src/graph/paths.cc, ncclTopoComputeP2pChannels): 4 gives 10 x 1 its 4 channels.
int p2p_channels_per_peer(const TuningTopology& topology,
                          int comm_channels,
                          std::optional<int> per_net_peer = std::nullopt);

// `peer_bytes`, for AllToAll only, replaces size / n per peer; the protocol is then LL only if
// every message is below kP2pLlThreshold. Throws sim::InputError for an op that is not
// point-to-point, a communicator the system cannot hold, or a matrix not n x n or with a
// negative entry.
P2pPlan make_p2p_plan(const System& system,
                      CollectiveOp op,
                      sim::Bytes size,
                      const Communicator& comm,
                      bool pxn,
                      int net_channels,
                      const PeerBytes* peer_bytes = nullptr);

}  // namespace railsim::models
