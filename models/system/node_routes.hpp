// File: models/system/node_routes.hpp
// NodePathBuilder: the links a route takes inside one node of a System. Between two GPUs: NVLink
// where they share it, else PCIe peer-to-peer within p2p_level, else a bounce through host
// memory. Between a memory and a compute NIC: GPUDirect RDMA within gdr_level, else a bounce on
// the GPU's socket; host memory on the NIC's socket. Internal to models/system (routes.cpp).
#pragma once

#include "models/hardware/node_spec.hpp"
#include "models/system/system.hpp"
#include "models/system/system_links.hpp"

#include <vector>

namespace railsim::models {

// Appends to one path, piece by piece; the nodes it reads must be built. Over PCIe a transfer
// climbs the tree to the lowest common switch and descends; without one it goes through the host
// bridges, and the socket link when the sockets differ. A bounce buffer crosses its socket's
// memory link twice: written by one side, read by the other.
class NodePathBuilder {
 public:
  NodePathBuilder(const System& system, const SystemLinks& links, std::vector<sim::LinkId>& path)
      : system_(system), m_(links), path_(path) {}

  // GPU to GPU of node `node`, the bounce on the sender's socket. Throws sim::InputError when the
  // two are one GPU.
  void gpu_to_gpu(int node, int from_gpu, int to_gpu);

  // The sender's memory to its NIC (up to the NIC, not its port): host memory, or its GPU's.
  void memory_to_nic(const Endpoint& src);

  // The mirror of memory_to_nic on the receiver, a bounce on the GPU's socket.
  void nic_to_memory(const Endpoint& dst);

  // The port of `end`'s NIC to its leaf (`up`) or back. Throws sim::InputError when it is down.
  void port(const Endpoint& end, bool up);

 private:
  // A PCIe element of a node: its links to its parent, and the parent.
  struct Element {
    const Attachment* links = nullptr;
    PcieParent parent;
  };

  Element gpu(int n, int g) const;
  Element nic_of(const Endpoint& end) const;
  int socket(int n, const Element& e) const;
  void pcie(int n, const Element& from, const Element& to);
  void host_bounce(int n, const Element& from, const Element& to, bool staged_by_sender);
  void up_to_bridge(int n, const Element& e);
  void down_from_bridge(int n, const Element& e);
  void cross_sockets(int n, int from, int to);
  void bounce(int n, int socket_index);
  // The up links of the switches from `from` up to `until` (not its own), nearest first; or
  // all of them, to the host bridge, for kHostBridge.
  void climb_switches(int n, PcieParent from, PcieParent until);

  // The down links of the switches from `until` (not its own) down to `to`, in that order.
  void descend_switches(int n, PcieParent to, PcieParent until);

  // `until` for a climb to the host bridge: no switch is this one.
  static constexpr PcieParent kHostBridge{PcieParent::Kind::kHostBridge, -1};

  const System& system_;
  const SystemLinks& m_;
  std::vector<sim::LinkId>& path_;
};

}  // namespace railsim::models
