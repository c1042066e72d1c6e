// File: models/system/system.hpp
// System: N copies of a server on a leaf/spine fabric (two tiers, or three with pods under
// core switches), built into a sim::FlowNetwork as directed links (PCIe up and down, NVLink
// ports, host memory, the socket link, NIC ports, leaf, spine and core ports), and the routes of
// transfers across it. The links inside a node are built by node_links.cpp, the fabric's by
// fabric_cabling.cpp; the routes are routes.cpp's.
//
// Fabric links (NIC ports, leaf, spine and core ports) carry payload at the port rate times the
// wire efficiency of the fabric's transport and MTU.
//
// NVLink: with an NVSwitch, each GPU has one port each way of links_per_gpu x link_rate x
// efficiency; with bridges, each bridged pair one link each way.
//
// Routes. Inside a node a transfer climbs the PCIe tree to the lowest common switch and descends;
// without one it goes through the host bridges, and the socket link when the sockets differ
// (node_routes.hpp). Between nodes it leaves through a compute NIC: directly from GPU memory when
// GPUDirect RDMA applies (the GPU-NIC distance is within gdr_level), else staged through the host
// memory of the GPU's socket (written, then read: two crossings of the memory link). In the
// fabric a flow stays under its leaf when both NICs share it; otherwise it climbs to a spine
// (and, with three tiers, to a core when the leaves are in different pods) and back down, each
// switch choosing among its equal-cost ports by a hash of the flow's identity (ECMP, ecmp.hpp),
// or, under adaptive routing, the transfer split over lanes that share every hop evenly
// (adaptive_lanes.hpp).
//
// Link names, as faults and `railsim topo --links` use them: "n3.mlx5_0>leaf4" and back for a
// NIC port; "leaf4>spine1.5" and "spine1.5>leaf4" for uplink 5 of leaf 4, to spine 1 (spines are
// numbered across pods: pod q holds spines q x spines .. q x spines + spines - 1);
// "spine1>core2.6" and "core2.6>spine1" for uplink 6 of spine 1, to core 2.
#pragma once

#include "models/fabric/fabric_spec.hpp"
#include "models/hardware/node_spec.hpp"
#include "models/hardware/path_class.hpp"
#include "models/system/ib_hca.hpp"
#include "sim/flow_network.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
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
  // default PXB on PCIe servers, nccl:src/graph/paths.cc ncclTopoCheckGdr).
  PathClass gdr_level = PathClass::kPxb;
  // GPU-to-GPU over PCIe inside a node is peer-to-peer up to this distance, else staged through
  // host memory (NCCL_P2P_LEVEL's default PXB, nccl:src/graph/paths.cc).
  PathClass p2p_level = PathClass::kPxb;
  std::vector<int> gdr_off_nodes;  // nodes on which GPUDirect RDMA is disabled
  // NCCL_IB_HCA: the compute NICs NCCL may use (all when absent), matched by the name each
  // tray's system gives them (ib_hca.hpp).
  std::optional<IbHcaFilter> ib_hca;
  // Nodes built from another server description than `node`, by node index: a what-if such as
  // a NIC in a slot of the other socket. Each keeps `node`'s GPUs, NVLink and compute NICs (the
  // same names in the same order); its PCIe tree and NUMA layout may differ.
  std::map<int, NodeSpec> node_variants;
  // Empty: every node is built. Else only these nodes' links are, the fabric whole: what one
  // measurement between some nodes of a large cluster needs, at a cost that does not grow with
  // the cluster. Their routes and link names are those of the whole system; nothing may run on
  // the other nodes.
  std::vector<int> built_nodes;
};

// Node `node`'s GPU or NIC `element` ("gpu3", "mlx5_9") below another PCIe parent of that node: a
// card in another slot, written into spec.node_variants. Throws sim::InputError for an element
// that is no GPU or NIC of the node, or a parent the node does not have.
void move_pcie_device(SystemSpec& spec, int node, std::string_view element, PcieParent parent);

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

struct SystemLinks;    // system_links.hpp
struct ReductionTree;  // reduction_tree.hpp

// The links live in `network`, which must outlive the System. They are added in an order fixed by
// the spec (each built node's links in node order, then the NIC ports, then the cables between
// switches), so two Systems of one spec number their links alike. Capacities are payload bytes/s
// per direction. A route lists links in the order its bytes cross them (a bounce buffer's memory
// link twice), and is the same on every platform for the same spec, seeds and queue pair.
class System {
 public:
  // Adds every link of the system to `network`. Throws sim::InputError for an impossible spec
  // (no nodes, no compute NIC, a cabling table that leaves a NIC unconnected or puts two NICs of
  // one node on one rail, ...). `node_built`, when given, runs after each node's links are
  // added: the nodes are most of the work, so a progress bar over them tells how much is left.
  System(SystemSpec spec, sim::FlowNetwork& network, const std::function<void()>& node_built = {});
  ~System();

  System(const System&) = delete;
  System& operator=(const System&) = delete;

  const SystemSpec& spec() const { return spec_; }

  // The server node `node` is built from: spec().node, or its variant.
  const NodeSpec& node_spec(int node) const;

  // Whether node `node`'s links are built (SystemSpec::built_nodes).
  bool built(int node) const;

  // Indices into spec().node.nics of the compute NICs, in rail order of an aligned cabling.
  const std::vector<int>& compute_nics() const { return compute_nics_; }

  int rail_of(int node, int compute_nic) const;
  int leaf_of(int node, int compute_nic) const;
  int leaf_count() const;

  bool is_spine_link(sim::LinkId link) const;  // a leaf-spine cable, either direction
  bool is_core_link(sim::LinkId link) const;   // a spine-core cable, either direction
  bool is_host_memory_link(sim::LinkId link) const;
  bool is_node_port_link(sim::LinkId link) const;  // a NIC's port to or from its leaf

  // The two directions of the cable a fabric link (a NIC port, a cable between switches) is
  // one of: {upward, downward}, {"leaf4>spine1.5", "spine1.5>leaf4"} for either of them.
  std::pair<sim::LinkId, sim::LinkId> cable_of(sim::LinkId link) const;

  // Takes a fabric link (a NIC port or a cable between switches, one direction) out of service:
  // routes avoid it from now on, and a route that cannot is an InputError naming it.
  void set_link_down(sim::LinkId link);
  bool is_link_down(sim::LinkId link) const;

  // Whether both directions of compute NIC `compute_nic`'s port on `node` are in service: NCCL
  // leaves a NIC whose port is down out of its topology.
  bool nic_port_up(int node, int compute_nic) const;

  // Whether NCCL_IB_HCA (SystemSpec::ib_hca) lets NCCL use compute NIC `compute_nic`.
  bool nccl_may_use(int compute_nic) const;

  // The compute NIC closest to a GPU of `node` over PCIe (the lowest index among equals): the
  // one NCCL and `ib_write_bw --use_cuda` would pick for it.
  int nearest_compute_nic(int node, int gpu) const;

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
  // ECMP the one hashed path; under a shared leaf the one path; with adaptive routing one path
  // per lane, as many as adaptive_lanes.hpp gives the two leaves.
  std::vector<std::vector<sim::LinkId>> routes(Endpoint src,
                                               Endpoint dst,
                                               std::uint64_t queue_pair = 0) const;

  // The SHARP aggregation tree over `members`, one NIC each on distinct built nodes, number `tree`
  // among a collective's (reduction_tree.hpp). Throws sim::InputError when no switch lies above
  // every member's leaf, or a link the tree needs is down.
  ReductionTree reduction_tree(const std::vector<Endpoint>& members, int tree) const;

 private:
  SystemSpec spec_;
  std::vector<int> compute_nics_;
  std::unique_ptr<SystemLinks> links_;
};

}  // namespace railsim::models
