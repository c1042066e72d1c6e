// File: models/hardware/node_presets.cpp
// The preset servers, built with NodeBuilder so each reads as its block diagram.
// Figures and their sources: docs/hardware.md (datasheets and the nvidia-smi dumps).
#include "models/hardware/node_presets.hpp"

#include "models/did_you_mean.hpp"
#include "models/hardware/nvlink_domain.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <optional>

namespace railsim::models {
namespace {

// Appends the parts of a NodeSpec and hands back the indices that later parts attach to.
class NodeBuilder {
 public:
  explicit NodeBuilder(NodeSpec& node) : node_(node) {}

  int numa(int id, int socket, std::string cpus) {
    node_.numa_nodes.push_back({id, socket, std::move(cpus)});
    return static_cast<int>(node_.numa_nodes.size() - 1);
  }

  PcieParent host_bridge(int numa) {
    node_.host_bridges.push_back({numa});
    return {PcieParent::Kind::kHostBridge, static_cast<int>(node_.host_bridges.size() - 1)};
  }

  PcieParent pcie_switch(PcieParent parent, PcieLink uplink) {
    node_.switches.push_back({parent, uplink});
    return {PcieParent::Kind::kSwitch, static_cast<int>(node_.switches.size() - 1)};
  }

  // `c2c`: the GPU reaches the host over NVLink-C2C at this rate instead of `link`.
  void gpu(std::string model,
           PcieParent parent,
           PcieLink link,
           std::optional<sim::Bandwidth> c2c = std::nullopt) {
    node_.gpus.push_back({std::move(model), parent, link, c2c});
  }

  void nic(Nic nic) { node_.nics.push_back(std::move(nic)); }

 private:
  NodeSpec& node_;
};

constexpr PcieLink kGen4x16{4, 16};
constexpr PcieLink kGen5x16{5, 16};

Nic connectx(std::string name,
             std::string model,
             PcieParent parent,
             PcieLink link,
             sim::Bandwidth rate,
             NicRole role) {
  Nic nic;
  nic.name = std::move(name);
  nic.model = std::move(model);
  nic.parent = parent;
  nic.link = link;
  nic.port_rate = rate;
  nic.role = role;
  return nic;
}

// The head of every preset: two sockets of one CPU model, the link between them, the NVLink
// domain.
NodeSpec two_socket_node(std::string name,
                         std::string description,
                         const std::string& cpu,
                         sim::Bandwidth memory,
                         sim::Bandwidth inter_socket,
                         NvlinkDomain nvlink) {
  NodeSpec node;
  node.name = std::move(name);
  node.description = std::move(description);
  node.sockets = {{cpu, memory}, {cpu, memory}};
  node.inter_socket = inter_socket;
  node.nvlink = std::move(nvlink);
  return node;
}

// NVLink 5 through `switch_chips` NVSwitch chips: 18 links a GPU at 50 GB/s, at NCCL's SM100
// rate of 40.1 a link (nccl:src/graph/topo.h), whose SM90 ratio, 20.6 of 25, is within 0.3% of
// what H100 rings measure (370 of 450).
NvlinkDomain nvlink5(int switch_chips) {
  NvlinkDomain nvlink{NvlinkKind::kSwitch, 18, sim::gbytes_per_s(50), switch_chips, {}};
  nvlink.efficiency = 40.1 / 50.0;
  return nvlink;
}

// DGX H100: 2 x Xeon 8480C; one Gen5 switch per GPU-NIC pair, each on its own host bridge,
// four per socket (GPU_i PIX to its CX-7, NODE to the rest of the socket, SYS across).
// Storage functions sit under GPU0's and GPU4's switches as in the public HGX H100 dumps.
NodeSpec dgx_h100(std::string name, const std::string& gpu_model) {
  NodeSpec node = two_socket_node(
      std::move(name),
      "8x " + gpu_model + ", NVLink 4 via 4 NVSwitch, 8x ConnectX-7 NDR 400G, PCIe Gen5",
      "Intel Xeon Platinum 8480C", sim::gbytes_per_s(307.2), sim::gbytes_per_s(22),
      {NvlinkKind::kSwitch, 18, sim::gbytes_per_s(25), 4, {}});
  NodeBuilder b(node);
  const int numa[2] = {b.numa(0, 0, "0-55,112-167"), b.numa(1, 1, "56-111,168-223")};
  PcieParent sw[8];
  for (int g = 0; g < 8; ++g) {
    sw[g] = b.pcie_switch(b.host_bridge(numa[g / 4]), kGen5x16);
    b.gpu(gpu_model, sw[g], kGen5x16);
  }

  // mlx5 numbering as the DGX H100 user guide and the HGX dumps give it.
  struct Function {
    int mlx5;
    int below_gpu;
    NicRole role;
  };

  constexpr Function kFunctions[] = {
      {0, 0, NicRole::kCompute}, {1, 0, NicRole::kStorage},  {2, 0, NicRole::kStorage},
      {3, 1, NicRole::kCompute}, {4, 2, NicRole::kCompute},  {5, 3, NicRole::kCompute},
      {6, 4, NicRole::kCompute}, {7, 4, NicRole::kStorage},  {8, 4, NicRole::kStorage},
      {9, 5, NicRole::kCompute}, {10, 6, NicRole::kCompute}, {11, 7, NicRole::kCompute}};
  for (const Function& f : kFunctions) {
    b.nic(connectx(fmt::format("mlx5_{}", f.mlx5), "ConnectX-7", sw[f.below_gpu], kGen5x16,
                   sim::gbps(400), f.role));
  }
  return node;
}

// DGX B200: 2 x Xeon 8570; four Gen5 switches, each on its own host bridge, two per socket,
// each holding two GPUs and their two CX-7 (PIX to each other, NODE to the other switch of the
// socket, SYS across), as the GCP A4 HGX B200 dump shows. NVLink 5 through 2 NVSwitch chips.
// The two BlueField-3 storage DPUs are left out: no dump places them, and they carry no
// collective traffic.
NodeSpec dgx_b200() {
  NodeSpec node = two_socket_node(
      "dgx-b200", "8x B200, NVLink 5 via 2 NVSwitch, 8x ConnectX-7 NDR 400G, PCIe Gen5",
      "Intel Xeon Platinum 8570", sim::gbytes_per_s(358.4), sim::gbytes_per_s(40), nvlink5(2));
  NodeBuilder b(node);
  const int numa[2] = {b.numa(0, 0, "0-55,112-167"), b.numa(1, 1, "56-111,168-223")};
  for (int s = 0; s < 4; ++s) {
    const PcieParent sw = b.pcie_switch(b.host_bridge(numa[s / 2]), kGen5x16);
    b.gpu("B200-SXM-180GB", sw, kGen5x16);
    b.gpu("B200-SXM-180GB", sw, kGen5x16);
    for (int port = 0; port < 2; ++port) {
      b.nic(connectx(fmt::format("mlx5_{}", 2 * s + port), "ConnectX-7", sw, kGen5x16,
                     sim::gbps(400), NicRole::kCompute));
    }
  }
  return node;
}

// DGX B300: each GPU's ConnectX-8 SuperNIC sits on the GPU baseboard with a PCIe Gen6 switch of
// its own, the GPU below it (PIX). Its 800G runs as `ports` ports of `port_rate`: two 400G
// ports, one on each plane of the Spectrum-X twin-plane fabric (ports 0 of the eight GPUs first,
// then ports 1, so rails 0-7 and 8-15 split into planes as /system/fabric/planes: 2 splits
// them), or one 800G XDR port on the Quantum-X800 fabric. The host side is assumed
// (docs/hardware.md).
NodeSpec dgx_b300(std::string name, const std::string& nics, int ports, sim::Bandwidth port_rate) {
  constexpr PcieLink kGen6x16{6, 16};
  NodeSpec node = two_socket_node(
      std::move(name), "8x B300, NVLink 5 via 2 NVSwitch, 8x ConnectX-8 " + nics + ", PCIe Gen6",
      "Intel Xeon 6776P (assumed)", sim::gbytes_per_s(409.6), sim::gbytes_per_s(40), nvlink5(2));
  NodeBuilder b(node);
  const int numa[2] = {b.numa(0, 0, "0-63,128-191"), b.numa(1, 1, "64-127,192-255")};
  PcieParent supernic[8];
  for (int g = 0; g < 8; ++g) {
    supernic[g] = b.pcie_switch(b.host_bridge(numa[g / 4]), kGen6x16);
    b.gpu("B300-SXM-288GB", supernic[g], kGen6x16);
  }
  for (int port = 0; port < ports; ++port) {
    for (int g = 0; g < 8; ++g) {
      b.nic(connectx(fmt::format("mlx5_{}", 8 * port + g), "ConnectX-8", supernic[g], kGen6x16,
                     port_rate, NicRole::kCompute));
    }
  }
  return node;
}

// A Grace CPU as a socket: 72 Arm Neoverse V2 cores and its LPDDR5X.
CpuSocket grace() { return {"NVIDIA Grace", sim::gbytes_per_s(512)}; }

// GH200 (one Grace Hopper superchip a node): the H100's NVLink-C2C to the Grace in place of
// PCIe, and four 200G ports, each on a root port of its own, NODE from the GPU: NCCL reaches
// them through the CPU and leaves GPUDirect RDMA off by default (NVIDIA/nccl#1579).
NodeSpec gh200() {
  NodeSpec node;
  node.name = "gh200";
  node.description = "1x GH200 (H100 + Grace over NVLink-C2C), 4x ConnectX-7 NDR200 200G";
  node.sockets = {grace()};
  NodeBuilder b(node);
  const int numa = b.numa(0, 0, "0-71");
  b.gpu("GH200", b.host_bridge(numa), kGen5x16, sim::gbytes_per_s(450));
  for (int n = 0; n < 4; ++n) {
    b.nic(connectx(fmt::format("mlx5_{}", n), "ConnectX-7", b.host_bridge(numa), kGen5x16,
                   sim::gbps(200), NicRole::kCompute));
  }
  return node;
}

// The part the Grace Blackwell trays share: two Graces bridged by NVLink-C2C, each its own NUMA
// node (index c for Grace c), and every GPU's 18 NVLink 5 links to the rack's 18 NVLink switch
// chips.
NodeSpec grace_blackwell_tray(std::string name) {
  NodeSpec node;
  node.name = std::move(name);
  node.sockets = {grace(), grace()};
  node.inter_socket = sim::gbytes_per_s(450);
  node.numa_nodes = {{0, 0, "0-71"}, {1, 1, "72-143"}};
  node.nvlink = nvlink5(18);
  return node;
}

// A GB200 compute tray: two Grace Blackwell superchips (a Grace and two B200 over NVLink-C2C
// each), the two Graces bridged by NVLink-C2C, and four ConnectX-7 400G, two on each Grace's
// root ports (NODE from its GPUs, as the GB200 topology of Mellanox/ngc_multinode_perf#129
// shows). Every GPU's 18 NVLink 5 links go to the rack's NVLink switch trays.
NodeSpec gb200_tray() {
  NodeSpec node = grace_blackwell_tray("gb200-tray");
  NodeBuilder b(node);
  for (int c = 0; c < 2; ++c) {
    const PcieParent c2c = b.host_bridge(c);
    for (int g = 0; g < 2; ++g) {
      b.gpu("GB200", c2c, kGen5x16, sim::gbytes_per_s(450));
    }
    for (int n = 0; n < 2; ++n) {
      b.nic(connectx(fmt::format("mlx5_{}", 2 * c + n), "ConnectX-7", b.host_bridge(c), kGen5x16,
                     sim::gbps(400), NicRole::kCompute));
    }
  }
  return node;
}

// A GB300 compute tray: as GB200's, with B300 GPUs and a ConnectX-8 SuperNIC of 800G per GPU
// whose PCIe Gen6 switch holds the GPU too (PIX: GPUDirect RDMA on without going through the
// Grace), its uplink on the Grace's root port. The GPU's path to its NIC is that switch, so the
// model gives it PCIe Gen6 x16 there; what the C2C carries is not on any NIC path.
NodeSpec gb300_tray() {
  constexpr PcieLink kGen6x16{6, 16};
  NodeSpec node = grace_blackwell_tray("gb300-tray");
  NodeBuilder b(node);
  for (int c = 0; c < 2; ++c) {
    for (int g = 0; g < 2; ++g) {
      const PcieParent supernic = b.pcie_switch(b.host_bridge(c), kGen6x16);
      b.gpu("GB300", supernic, kGen6x16);
      b.nic(connectx(fmt::format("mlx5_{}", 2 * c + g), "ConnectX-8", supernic, kGen6x16,
                     sim::gbps(800), NicRole::kCompute));
    }
  }
  return node;
}

// DGX A100: 2 x EPYC 7742 in NPS4 (8 NUMA nodes); four Gen4 switch complexes, each a top
// switch over four lower ones holding GPU a, GPU b and their two CX-6 HDR NICs (all PXB to each
// other); two dual-port storage CX-6 on NUMA nodes without GPUs.
NodeSpec dgx_a100() {
  NodeSpec node = two_socket_node(
      "dgx-a100", "8x A100-SXM4, NVLink 3 via 6 NVSwitch, 8x ConnectX-6 HDR 200G, PCIe Gen4",
      "AMD EPYC 7742", sim::gbytes_per_s(204.8), sim::gbytes_per_s(16),
      {NvlinkKind::kSwitch, 12, sim::gbytes_per_s(25), 6, {}});
  NodeBuilder b(node);
  int numa[8];
  for (int n = 0; n < 8; ++n) {
    numa[n] = b.numa(
        n, n / 4, fmt::format("{}-{},{}-{}", 16 * n, 16 * n + 15, 128 + 16 * n, 128 + 16 * n + 15));
  }

  // GPU pairs and their NICs: (GPUs, NUMA node, mlx5 of the two NICs), from the dump.
  struct Complex {
    int first_gpu;
    int numa;
    int mlx5[2];
  };

  constexpr Complex kComplexes[] = {{0, 3, {0, 1}}, {2, 1, {2, 3}}, {4, 7, {6, 7}}, {6, 5, {8, 9}}};
  constexpr int kStorageNuma[] = {2, 6};  // inferred: NUMA nodes with no GPU complex
  std::vector<Nic> nics(12);
  for (const Complex& c : kComplexes) {
    const PcieParent top = b.pcie_switch(b.host_bridge(numa[c.numa]), kGen4x16);
    for (int k = 0; k < 2; ++k) {
      b.gpu("A100-SXM4-80GB", b.pcie_switch(top, kGen4x16), kGen4x16);
    }
    for (int mlx5 : c.mlx5) {
      nics[static_cast<std::size_t>(mlx5)] =
          connectx(fmt::format("mlx5_{}", mlx5), "ConnectX-6", b.pcie_switch(top, kGen4x16),
                   kGen4x16, sim::gbps(200), NicRole::kCompute);
    }
  }
  for (int s = 0; s < 2; ++s) {
    const PcieParent sw = b.pcie_switch(b.host_bridge(numa[kStorageNuma[s]]), kGen4x16);
    for (int port = 0; port < 2; ++port) {
      const int mlx5 = 4 + 6 * s + port;
      nics[static_cast<std::size_t>(mlx5)] =
          connectx(fmt::format("mlx5_{}", mlx5), "ConnectX-6", sw, kGen4x16, sim::gbps(200),
                   NicRole::kStorage);
    }
  }
  for (Nic& nic : nics) {
    b.nic(std::move(nic));
  }
  return node;
}

// 8 x A100 PCIe with NVLink bridges in pairs, as in the nvidia-smi dump of nccl-tests issue 178:
// each bridged pair below one switch on its own host bridge, two pairs per socket. Two CX-6 HDR
// NICs, one below the first pair of each socket (placement assumed: the dump lists no NICs).
NodeSpec a100_pcie_nvlink_bridge() {
  NodeSpec node = two_socket_node(
      "a100-pcie-nvlink-bridge",
      "8x A100 PCIe, NVLink bridges in pairs, no NVSwitch, 2x ConnectX-6 HDR 200G",
      "AMD EPYC 7543 (assumed)", sim::gbytes_per_s(204.8), sim::gbytes_per_s(16),
      {NvlinkKind::kBridge, 12, sim::gbytes_per_s(25), 0, {{0, 1}, {2, 3}, {4, 5}, {6, 7}}});
  NodeBuilder b(node);
  const int numa[2] = {b.numa(0, 0, "0-31,64-95"), b.numa(1, 1, "32-63,96-127")};
  for (int pair = 0; pair < 4; ++pair) {
    const PcieParent sw = b.pcie_switch(b.host_bridge(numa[pair / 2]), kGen4x16);
    b.gpu("A100-PCIE-80GB", sw, kGen4x16);
    b.gpu("A100-PCIE-80GB", sw, kGen4x16);
    if (pair % 2 == 0) {
      b.nic(connectx(fmt::format("mlx5_{}", pair / 2), "ConnectX-6", sw, kGen4x16, sim::gbps(200),
                     NicRole::kCompute));
    }
  }
  return node;
}

struct Preset {
  const char* name;
  NodeSpec (*build)();
};

constexpr Preset kPresets[] = {
    {"dgx-a100", dgx_a100},
    {"dgx-h100", [] { return dgx_h100("dgx-h100", "H100-SXM5-80GB"); }},
    {"hgx-h200", [] { return dgx_h100("hgx-h200", "H200-SXM-141GB"); }},
    {"dgx-b200", dgx_b200},
    {"dgx-b300", [] { return dgx_b300("dgx-b300", "800G as 2x 400G", 2, sim::gbps(400)); }},
    {"dgx-b300-xdr", [] { return dgx_b300("dgx-b300-xdr", "XDR 800G", 1, sim::gbps(800)); }},
    {"gh200", gh200},
    {"gb200-nvl72",
     [] {
       return nvlink_domain(gb200_tray(), 18, "gb200-nvl72",
                            "GB200 NVL72 rack: 18 trays of 4 B200 and 2 Grace, 4x ConnectX-7 NDR "
                            "400G a tray, one NVLink 5 domain of 72 GPUs");
     }},
    {"gb300-nvl72",
     [] {
       return nvlink_domain(gb300_tray(), 18, "gb300-nvl72",
                            "GB300 NVL72 rack: 18 trays of 4 B300 and 2 Grace, a ConnectX-8 800G "
                            "per GPU, one NVLink 5 domain of 72 GPUs");
     }},
    {"a100-pcie-nvlink-bridge", a100_pcie_nvlink_bridge},
};

}  // namespace

std::vector<std::string> node_preset_names() {
  std::vector<std::string> names;
  for (const Preset& preset : kPresets) {
    names.emplace_back(preset.name);
  }
  return names;
}

NodeSpec node_preset(std::string_view name) {
  for (const Preset& preset : kPresets) {
    if (name == preset.name) {
      return preset.build();
    }
  }
  const std::vector<std::string> names = node_preset_names();
  throw sim::InputError(fmt::format("unknown node preset '{}'{}; known presets: {}", name,
                                    did_you_mean(name, names), fmt::join(names, ", ")));
}

}  // namespace railsim::models
