// File: models/collective/ring_layout.hpp
// How NCCL lays its rings over a system (nccl:src/graph/search.cc, paths.cc): each channel is a
// ring that crosses each node once, entering on one GPU and leaving on another, and uses one NIC to
// enter and one to leave. NCCL_CROSS_NIC decides whether those are the same rail:
//   2 (default)  channel c enters node 0 on GPU c and leaves on GPU c+1 (mod G), each through its
//                own NIC; odd nodes run the ring the other way, entering on GPU c+1 and leaving
//                on GPU c, so every node-to-node hop stays on one rail (one odd node count leaves
//                the last hop crossing rails);
//   1            every node enters on GPU c and leaves on GPU c+1 through their own NICs: the
//                node-to-node hops change rail;
//   0            the ring leaves through the NIC it entered by: the leaving GPU sends over NVLink
//                to the entering GPU, which posts the RDMA (PXN), when PXN is on and that GPU
//                cannot reach the NIC with GPUDirect RDMA itself; otherwise directly.
// Inside a node the ring visits the GPUs in index order from the entering GPU (downwards on
// even nodes with CROSS_NIC 2, upwards on odd ones), which on an NVSwitch is as good as any.
// GPUs map to NICs by NCCL's affinity (nic_affinity.hpp); a GPU with several NICs leaves and
// enters channel c by its NIC of round c / G, so every rail hop stays on one rail and channels
// c and c + G use a GPU's two ports.
//
// Ranks, nodes and GPUs here are the communicator's own (communicator.hpp); NIC indices are
// into System::compute_nics().
#pragma once

#include "models/collective/communicator.hpp"
#include "models/collective/nic_affinity.hpp"
#include "models/system/system.hpp"

#include <optional>
#include <vector>

namespace railsim::models {

struct RingOptions {
  int channels = 1;
  int cross_nic = 2;  // NCCL_CROSS_NIC: 0, 1 or 2
  bool pxn = true;    // NCCL_PXN_DISABLE=0
};

// One hop of a ring: from ring position p's rank to the next. Inside a node `nic` fields are
// unused; between nodes the sender's NIC (by compute-NIC index), the GPU whose memory the NIC
// reads (the sender, or the PXN relay) and the receiver's NIC.
struct RingHop {
  int src = 0;  // ranks
  int dst = 0;
  bool inter_node = false;
  int send_nic = 0;
  int relay_gpu = -1;  // local GPU index the data crosses NVLink to first, or -1
  int recv_nic = 0;
};

struct RingLayout {
  std::vector<std::vector<int>> rings;     // per channel: ranks in ring order
  std::vector<std::vector<RingHop>> hops;  // per channel: hop p leaves ring position p
};

// Whether, under PXN, GPU `relay` of system node `node` can carry GPU `from`'s data to `nic`:
// NVLink joins the two and `relay` reaches the NIC with GPUDirect RDMA (system GPU and NIC
// indices; nccl:src/graph/paths.cc).
bool pxn_can_relay(const System& system, int node, int from, int relay, int nic);

// Throws sim::InputError unless `comm` fits the system (nodes, GPUs per node; node and GPU ids,
// if given, one per node or GPU, in range and none twice) and `channels`, if given, NCCL's
// MAXCHANNELS (1 to 64).
void check_fits(const System& system, const Communicator& comm, std::optional<int> channels);

// Throws sim::InputError for a communicator the system cannot hold, or options out of range.
RingLayout ring_layout(const System& system, const Communicator& comm, const RingOptions& options);

// Starts every ring of `layout` one position later, so that a chain down positions 0 .. n-1 ends
// at the rank where Broadcast's starts: Reduce's chain towards its root.
void start_after_root(RingLayout& layout);

}  // namespace railsim::models
