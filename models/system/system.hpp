// File: models/system/system.hpp
// System: N copies of a server on a leaf/spine fabric, built into a sim::FlowNetwork as directed
// links (PCIe up and down, NVLink ports, host memory, the socket link, NIC ports, leaf and spine
// ports), and the routes of transfers across it.
//
// Fabric links (NIC ports, leaf and spine ports) carry payload at the port rate times the wire
// efficiency of the fabric's transport and MTU.
//
// NVLink: with an NVSwitch, each GPU has one port each way of links_per_gpu x link_rate x
// efficiency; with bridges, each bridged pair one link each way.
//
// Routes. Inside a node a transfer climbs the PCIe tree to the lowest common switch and descends;
// without one it goes through the host bridges, and the socket link when the sockets differ.
// Between nodes it leaves through a compute NIC: directly from GPU memory when GPUDirect RDMA
// applies (the GPU-NIC distance is within gdr_level), else staged through the host memory of the
// GPU's socket (written, then read: two crossings of the memory link). In the fabric a flow stays
// under its leaf when both NICs share it; otherwise it climbs to a spine and back down, each
// switch choosing among its equal-cost ports by a hash of the flow's identity (ECMP).
#pragma once

#include "models/fabric/fabric_spec.hpp"
#include "models/hardware/node_spec.hpp"
#include "models/hardware/path_class.hpp"
#include "sim/flow_network.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railsim::models {

struct SystemSpec {
  NodeSpec node;
  int nodes = 1;
  FabricSpec fabric;
  // GPUDirect RDMA is used when the GPU-NIC distance is at most this (NCCL_NET_GDR_LEVEL's
  // default PXB on PCIe servers, fabric-facts.md §3.2).
  PathClass gdr_level = PathClass::kPxb;
  // GPU-to-GPU over PCIe inside a node is peer-to-peer up to this distance, else staged through
  // host memory (NCCL_P2P_LEVEL's default PXB, fabric-facts.md §3.2).
  PathClass p2p_level = PathClass::kPxb;
  std::vector<int> gdr_off_nodes;  // nodes on which GPUDirect RDMA is disabled
};

inline constexpr int kHostMemory = -1;

// One end of an RDMA transfer: a node, the compute NIC it uses (in rail order), and the memory
// it reads or writes: a GPU's, or (kHostMemory, as perftest without --use_cuda) the host memory
// of the NIC's socket.
struct Endpoint {
  int node = 0;
  int nic = 0;
  int gpu = kHostMemory;
};

// The names of the two links between a PCIe element of node `node` ("gpu3", "mlx5_0", "sw2")
// and its parent, as a System names them: {up, down}. Throws sim::InputError for an element the
// node does not have.
std::pair<std::string, std::string> pcie_link_names(const NodeSpec& node,
                                                    int node_index,
                                                    std::string_view element);

class System {
 public:
  // Adds every link of the system to `network`. Throws sim::InputError for an impossible spec
  // (no nodes, no compute NIC, a cabling table that leaves a NIC unconnected or puts two NICs of
  // one node on one rail, ...).
  System(SystemSpec spec, sim::FlowNetwork& network);
  ~System();

  System(const System&) = delete;
  System& operator=(const System&) = delete;

  const SystemSpec& spec() const { return spec_; }

  // Indices into spec().node.nics of the compute NICs, in rail order of an aligned cabling.
  const std::vector<int>& compute_nics() const { return compute_nics_; }

  int rail_of(int node, int compute_nic) const;
  int leaf_of(int node, int compute_nic) const;
  int leaf_count() const;

  bool is_spine_link(sim::LinkId link) const;
  bool is_host_memory_link(sim::LinkId link) const;
  bool is_node_port_link(sim::LinkId link) const;  // a NIC's port to or from its leaf

  // Takes a fabric link (a NIC port or a leaf-spine cable, one direction) out of service:
  // routes avoid it from now on, and a route that cannot is an InputError naming it.
  void set_link_down(sim::LinkId link);
  bool is_link_down(sim::LinkId link) const;

  // The compute NIC closest to a GPU over PCIe (the lowest index among equals): the one NCCL
  // and `ib_write_bw --use_cuda` would pick for it.
  int nearest_compute_nic(int gpu) const;

  // Whether a GPU of `node` reaches compute NIC `compute_nic` with GPUDirect RDMA.
  bool uses_gdr(int node, int gpu, int compute_nic) const;

  // The links from one GPU to another of the same node: NVLink where the two share it (through
  // the NVSwitch, or their bridge), else PCIe peer-to-peer within p2p_level, else a bounce
  // through the host memory of the sender's socket.
  std::vector<sim::LinkId> route_in_node(int node, int from_gpu, int to_gpu) const;

  // The links of one RDMA transfer between endpoints on different nodes; `queue_pair`
  // separates the flows of one connection for ECMP.
  std::vector<sim::LinkId> route(Endpoint src, Endpoint dst, std::uint64_t queue_pair = 0) const;

  // The paths a transfer takes under the fabric's routing, each to carry an equal share: with
  // ECMP the one hashed path; with adaptive routing one path per uplink of the source leaf (the
  // cables from each spine to the target leaf taken in turn), or the one path under a shared
  // leaf.
  std::vector<std::vector<sim::LinkId>> routes(Endpoint src,
                                               Endpoint dst,
                                               std::uint64_t queue_pair = 0) const;

 private:
  struct Impl;
  class PathBuilder;

  void compute_hops();

  // route() with `lane` >= 0 taking adaptive lane `lane` through the fabric instead of the hash.
  std::vector<sim::LinkId> route_lane(Endpoint src,
                                      Endpoint dst,
                                      std::uint64_t queue_pair,
                                      int lane) const;

  SystemSpec spec_;
  std::vector<int> compute_nics_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace railsim::models
