// File: models/collective/nic_affinity.hpp
// Which compute NICs a GPU sends through, as NCCL decides (nccl:src/graph/search.cc, topo.cc
// ncclTopoGetLocalNet):
//   own NIC     each GPU, from GPU 0 up, takes the nearest compute NIC over PCIe, then the least
//               used, then the lowest index: two GPUs that share a PCIe switch with two NICs use
//               one each (DGX A100, GCP A4 B200); fewer NICs than GPUs are shared.
//   more NICs   a NIC no GPU took joins the GPU that reaches it at the distance of that GPU's own
//               NIC and has the fewest NICs so far (the lowest index among equals), while that
//               GPU's NICs' port rates add up to less than its PCIe link carries. A GPU with two
//               200G ports at its distance (OCI BM.GPU.H100.8's 16 x 200G on 8 GPUs) or four
//               100G ones spreads its channels over all of them, as ncclTopoGetLocalNet's
//               ceil(local NICs / local GPUs) NICs per GPU does, up to the NICs the GPU can
//               feed (getLocalNetCountByBw, nccl:src/graph/topo.cc). A NIC farther than a GPU's
//               own is never added: NCCL keeps to the NICs of the best path.
// A GPU uses its NICs in turn, by "round": channel c of a collective whose channels cycle over
// the node's G GPUs is in round c / G (so channels c and c + G leave by different ports), and
// p2p channel k in round k. With one NIC per GPU every round gives the same NIC.
//
// The choice is made per node among the NICs whose port is up, as NCCL's topology detection
// does, over the node's GPUs from 0 up to the communicator's highest, so a GPU uses the NICs it
// would with its whole node in the communicator (GPU 3 of a data-parallel group {nodes} x {gpu 3}
// uses NIC 3's rail on a DGX H100).
//
// NIC indices are into System::compute_nics(); nodes and GPUs are the communicator's own where a
// Communicator is given, the system's otherwise.
#pragma once

#include "models/collective/communicator.hpp"
#include "models/system/system.hpp"

#include <vector>

namespace railsim::models {

// Per GPU: the compute NICs it uses, its own first.
using GpuNicSets = std::vector<std::vector<int>>;

// The NIC a GPU with `nics` uses in `round`.
int nic_in_round(const std::vector<int>& nics, int round);

// The NICs of each of the first `gpus` GPUs of system node `node`, all NICs counted as up.
GpuNicSets gpu_nics(const System& system, int node, int gpus);

// The same leaving out the NICs whose port is down on `node`: a GPU whose NIC is lost moves to
// the nearest NIC left (then the least used), so two channels share that NIC and the rail of
// the lost one is reached over the spine. Throws sim::InputError when no NIC of the node is up.
GpuNicSets gpu_nics_on(const System& system, int node, int gpus);

// The NICs of a communicator's GPUs, per local node and GPU.
class CommNics {
 public:
  // One node needs no NIC and takes its server's choice, all ports counted as up.
  CommNics(const System& system, const Communicator& comm);

  // The NIC local GPU `gpu` of local node `node` uses in `round`.
  int nic(int node, int gpu, int round = 0) const;

  // Every NIC of that GPU, its own first.
  const std::vector<int>& nics(int node, int gpu) const;

  // The distinct NICs the GPUs of local node `node` use.
  int distinct_nics(int node) const;

  // Up to `count` GPUs of local node 0, in index order, each the first to use its own NIC: the
  // heads of NCCL's NVLS and CollNet Direct graphs, every one sending through a NIC of its own.
  std::vector<int> heads(int count) const;

 private:
  std::vector<GpuNicSets> sets_;  // [local node][local GPU]
};

}  // namespace railsim::models
