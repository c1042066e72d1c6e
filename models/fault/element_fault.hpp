// File: models/fault/element_fault.hpp
// ElementFault: one element of a design that is not as designed, the vocabulary railsim diagnose
// explains measurements with and railsim check prices slow NICs with. Each has a name a report
// prints and a next step to confirm it on the cluster; fault_injection.hpp puts faults into a
// design. Sits above models/system (the elements it names) and below the collectives.
#pragma once

#include "models/hardware/node_spec.hpp"

#include <string>
#include <vector>

namespace railsim::models {

// The kinds of fault:
//   - a compute NIC's port (its cable to the leaf, both directions) at a reduced rate;
//   - a compute NIC's PCIe link trained down (a lower generation or fewer lanes);
//   - a compute NIC down (NCCL then runs on the node's other NICs);
//   - GPUDirect RDMA off on a node;
//   - two of a node's cables swapped between their leaves (each port on the other's rail, so
//     traffic on both rails crosses a spine), where the design's rails are aligned or explicit;
//   - a compute NIC in a slot of the other socket (on a root port of that socket's first host
//     bridge; NCCL then gives its GPU the nearest NIC left, without GPUDirect RDMA);
//   - a cable between two switches (leaf-spine, spine-core) at a reduced rate, both directions;
//   - fabric-wide: leaves with a fraction of the design's uplinks (oversubscribed beyond it);
//     static ECMP instead of adaptive routing; another draw of a static-ECMP design's hash (the
//     switches' hash places colliding flows otherwise than the model's draw); a rail-aligned
//     design cabled top-of-rack (every NIC of a node on one leaf, RailMapping::kTopOfRack).
enum class FaultKind {
  kNicPort,
  kNicPcie,
  kNicDown,
  kGdrOff,
  kCablesSwapped,
  kNicOtherSocket,
  kSwitchCable,
  kFewerUplinks,  // fabric-wide
  kStaticEcmp,    // fabric-wide
  kEcmpDraw,      // fabric-wide
  kTopOfRack,     // fabric-wide
};

// The other draws of an ECMP design's hash tried: enough to find a placement of colliding flows
// much worse (or better) than the model's, few enough that fitting the draw does not fit noise.
inline constexpr int kEcmpDraws = 8;

struct ElementFault {
  FaultKind kind = FaultKind::kNicPort;
  int node = 0;  // unused for kSwitchCable and the fabric-wide kinds
  int nic = 0;   // the compute NIC; unused for kGdrOff, kSwitchCable and the fabric-wide kinds
  // The fraction of its rate the link keeps (kNicPort, kNicPcie, kSwitchCable), or of the
  // design's uplinks each leaf keeps (kFewerUplinks).
  double scale = 1.0;
  int other_nic = 0;    // kCablesSwapped: the compute NIC whose cable `nic`'s is swapped with
  std::string cable{};  // kSwitchCable: its upward link, as the system names it ("leaf4>spine1.5")
  int draw = 0;         // kEcmpDraw: which other draw of the hash, 1 to kEcmpDraws
};

// Whether faults of the kind lie on one node, the one ElementFault::node names (NIC faults, GDR
// off), rather than on a switch cable or the whole fabric.
bool on_a_node(FaultKind kind);

// The NIC a fault's compute-NIC index (ElementFault::nic, other_nic) stands for on `node`.
const Nic& faulted_nic(const NodeSpec& node, int compute_nic);

// What the cluster calls node i (`hosts`), or "n3" where it has no name.
std::string node_name(int node, const std::vector<std::string>& hosts = {});

// "n3.mlx5_5 port at 50%", "n3.mlx5_5 PCIe at 25%", "n3.mlx5_5 down", "n3 GPUDirect RDMA off",
// "n3.mlx5_9 and mlx5_10 cables swapped", "n3.mlx5_5 on the other socket",
// "cable leaf4>spine1.5 at 50%", "leaf uplinks at 50%
// of the design's", "static ECMP instead of adaptive routing", "ECMP collisions (hash draw 3)",
// "rails cabled top-of-rack";
// with `hosts` (what the cluster calls node i), "node03.mlx5_5 port at 50%".
std::string fault_name(const ElementFault& fault,
                       const NodeSpec& node,
                       const std::vector<std::string>& hosts = {});

// What to look at on the cluster to confirm the fault, or tell it from the others of its group.
std::string fault_next_step(const ElementFault& fault);

}  // namespace railsim::models
