// File: models/hardware/node_spec.hpp
// NodeSpec: one server as data. CPU sockets hold NUMA nodes; each NUMA node has PCIe host
// bridges (root complexes); PCIe switches hang below host bridges or other switches; GPUs and
// NICs hang below either. GPUs may also share an NVLink domain (an NVSwitch crossbar, or bridged
// pairs). Everything refers to everything else by index, and the GPU-NIC and GPU-GPU distance
// classes (PIX, PXB, PHB, NODE, SYS) are derived from this tree, never declared.
#pragma once

#include "models/hardware/pcie.hpp"
#include "sim/bandwidth.hpp"
#include "sim/time.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railsim::models {

// Where a PCIe device or switch attaches: to a host bridge, or below a PCIe switch.
struct PcieParent {
  enum class Kind { kHostBridge, kSwitch };
  Kind kind = Kind::kHostBridge;
  int index = 0;

  constexpr bool operator==(const PcieParent&) const = default;
};

struct CpuSocket {
  std::string model;
  sim::Bandwidth memory_bandwidth;  // host DRAM, bytes/s, all channels of the socket
};

struct NumaNode {
  int id = 0;        // the number nvidia-smi prints as NUMA Affinity
  int socket = 0;    // index into NodeSpec::sockets
  std::string cpus;  // CPU Affinity as nvidia-smi prints it, e.g. "0-55,112-167"
};

struct HostBridge {
  int numa = 0;  // index into NodeSpec::numa_nodes
};

struct PcieSwitch {
  PcieParent parent;
  PcieLink uplink;
};

struct Gpu {
  std::string model;
  PcieParent parent;
  PcieLink link;
  // NVLink-C2C to the CPU of its parent host bridge (Grace Hopper, Grace Blackwell): the GPU
  // reaches the host at this rate per direction, in place of `link`.
  std::optional<sim::Bandwidth> c2c;
};

enum class Transport { kInfiniband, kRoce };

constexpr const char* transport_name(Transport transport) {
  return transport == Transport::kRoce ? "RoCEv2" : "InfiniBand";
}

enum class NicRole { kCompute, kStorage };

struct Nic {
  std::string name;   // the verbs device, e.g. "mlx5_0"
  std::string model;  // e.g. "ConnectX-7"
  PcieParent parent;
  PcieLink link;
  sim::Bandwidth port_rate;  // data rate of the port per direction, after line coding
  Transport transport = Transport::kInfiniband;
  NicRole role = NicRole::kCompute;  // only compute NICs carry collective traffic
  bool gdr_capable = true;           // GPUDirect RDMA supported by NIC and driver
  // Messages per second one queue pair sustains: what bounds small-message bandwidth. A
  // calibrated parameter; default from the CX-6 HDR ib_write_bw sweep (2.59 Mpps, 1 QP,
  // docs/hardware.md), taken as the same for CX-7 until a measurement says otherwise.
  double message_rate_per_qp = 2.59e6;
  // Time the NIC adds to a message at its end of a one-way trip (sending it, or delivering it
  // into memory), the host's posting and polling included as perftest measures them. A
  // calibrated parameter with no datasheet figure. Default from the CX-7 NDR back-to-back
  // ib_send_lat fixture (tests/data): 2 B take 1.27 us typical (half the round trip), less the
  // modelled path, a 1 m cable at 5 ns/m and 2 B at the PCIe Gen5 x16
  // bottleneck of 49.15 GB/s (0.04 ns), leaves two NICs' share: (1270 - 5 - 0.04) / 2 = 632 ns per
  // end (docs/hardware.md). Taken as the same for CX-6 until a measurement says otherwise.
  sim::Duration processing_latency = sim::ns(632);
  // Time the sending NIC spends fetching a message's payload from memory when it was not posted
  // inline in the work request (a PCIe read round trip before the first byte leaves). A
  // calibrated parameter. Default from the CX-6 HDR ib_write_lat sweep (tests/data): t_typical
  // steps from 1.96 us at 128 B to 2.87 us at 256 B, where perftest stops posting inline
  // (DEF_INLINE_WRITE 220 B, perftest_parameters.h); the 128 more bytes take 5 ns, so 0.91 us.
  sim::Duration dma_read_latency = sim::ns(910);
  // Achieved / modelled payload rate of the port (after the fabric's wire efficiency) for RDMA
  // traffic: what a real NIC loses to its own scheduling and to the transport's acknowledgements.
  // A calibrated parameter; 1 until a measurement says otherwise (docs/calibration.md).
  double bandwidth_efficiency = 1.0;
};

enum class NvlinkKind { kNone, kSwitch, kBridge };

// The GPUs' NVLink connectivity. With an NVSwitch every GPU reaches every other over all its
// links (nvidia-smi NV<links_per_gpu>); with bridges only the listed pairs are linked.
struct NvlinkDomain {
  NvlinkKind kind = NvlinkKind::kNone;
  int links_per_gpu = 0;     // NVLinks per GPU (switch) or per bridged pair (bridge)
  sim::Bandwidth link_rate;  // per link per direction, line rate
  int switch_count = 0;      // NVSwitch chips on the baseboard
  std::vector<std::pair<int, int>> bridged_pairs;
  // Achieved / line rate of NVLink for collective traffic, a calibrated parameter: NCCL moves
  // ~370 of H100's 450 GB/s per direction (NCCL maintainers, nccl-tests#212 and nccl#1442).
  double efficiency = 370.0 / 450.0;
};

struct NodeSpec {
  std::string name;
  std::string description;
  std::vector<CpuSocket> sockets;
  sim::Bandwidth inter_socket;  // UPI / xGMI per direction
  std::vector<NumaNode> numa_nodes;
  std::vector<HostBridge> host_bridges;
  std::vector<PcieSwitch> switches;
  std::vector<Gpu> gpus;
  std::vector<Nic> nics;
  NvlinkDomain nvlink;
  // Effective / raw rate of every PCIe link of the node (TLP headers, DLLPs, DMA overheads). A
  // calibrated parameter; default kPcieEfficiency (pcie.hpp gives its source).
  double pcie_efficiency = kPcieEfficiency;
  // Compute trays joined into this node's NVLink domain through NVLink switch trays (GB200
  // NVL72: 18 trays of 4 GPUs), each with its own sockets, PCIe and NICs (nvlink_domain.hpp).
  // NCCL runs such a domain as one node (NCCL_MNNVL_ENABLE): rings and NVLS over all its GPUs,
  // the network only between domains. 1 for a server.
  int trays = 1;
};

// A PCIe parent's name, as scenario files, link names and `railsim topo` give it: "hb0" (host
// bridge 0), "sw2" (PCIe switch 2).
std::string pcie_parent_name(PcieParent parent);

// The rate a GPU reaches the host at per direction: its C2C link, else its PCIe link at the
// node's PCIe efficiency.
sim::Bandwidth gpu_host_rate(const NodeSpec& node, int gpu);

// The tray socket `socket` belongs to: the node's sockets are its trays' in tray order.
int tray_of_socket(const NodeSpec& node, int socket);

// Indices into node.nics of the compute NICs, in node order: the order of the rails of an
// aligned cabling, and the index a compute NIC goes by in System and Endpoint.
std::vector<int> compute_nic_indices(const NodeSpec& node);

// The compute-NIC index (into compute_nic_indices) of the NIC called `name`; none for a storage
// NIC or a name the node lacks.
std::optional<int> compute_nic_named(const NodeSpec& node, std::string_view name);

}  // namespace railsim::models
