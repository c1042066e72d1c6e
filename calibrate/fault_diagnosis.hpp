// File: calibrate/fault_diagnosis.hpp
// railsim diagnose: which faults make the model reproduce a cluster's measurements. Every
// candidate fault of the fault space below is injected into the design in turn, each measurement
// it can affect is predicted again, and the candidates are ranked by how well the predictions
// match what was measured:
//   - a compute NIC's port (its cable to the leaf, both directions) at a reduced rate;
//   - a compute NIC's PCIe link trained down (a lower generation or fewer lanes);
//   - a compute NIC down (NCCL then runs on the node's other NICs);
//   - GPUDirect RDMA off on a node;
//   - a compute NIC in a slot of the other socket (on a root port of that socket's first host
//     bridge; NCCL then gives its GPU the nearest NIC left, without GPUDirect RDMA);
//   - two of a node's cables swapped between their leaves (each port on the other's rail, so
//     traffic on both rails crosses a spine), where the design's rails are aligned or explicit;
//   - a cable between two switches (leaf-spine, spine-core) at a reduced rate, both directions,
//     for each cable the measurements' traffic crosses in the design;
//   - fabric-wide, where some measured traffic crosses a spine: leaves with a half or a quarter
//     of the design's uplinks (oversubscribed 2x or 4x beyond it); on a design that routes
//     adaptively, static ECMP instead (flows collide on uplinks); on a static-ECMP design,
//     kEcmpDraws other draws of its hash (the switches' hash places colliding flows otherwise
//     than the model's draw).
// A fault changes only the measurements that run through it: an RDMA pair through its own
// NIC's elements, a collective through those of its nodes, either through the switch cables its
// traffic crosses in the design; perftest in host memory does not use GPUDirect RDMA. So the
// sweep costs the faults times the few measurements each one touches, not the faults times all
// measurements.
//
// A rate fault is swept over a grid of scales, then the best candidates' scales are fitted
// (golden-section search), and pairs of them are tried together. The fit of each explanation is
// its sum of squared log errors SSE over the n measurements; explanations of k faults are ranked
// by n ln(SSE / n) + 2k ln p, p the number of candidate faults (at least e, so never below
// Akaike's 2k): Foster and George's risk inflation criterion. With hundreds of candidates, the
// best of them fits some measurement's noise by chance (a cable that only one collective crosses
// can be scaled to match that run's 1% exactly); a fault must beat what the best of p pure-noise
// candidates would gain, about 2 ln p, to count. So a second fault must pay for itself, and the
// design without any fault is a candidate like the others. Explanations the measurements cannot
// tell apart are grouped, and the group is what a diagnosis names.
#pragma once

#include "calibrate/measurements.hpp"
#include "calibrate/model_parameters.hpp"
#include "models/hardware/node_spec.hpp"
#include "models/system/rdma_bench.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace railsim::calibrate {

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

// "n3.mlx5_5 port at 50%", "n3.mlx5_5 PCIe at 25%", "n3.mlx5_5 down", "n3 GPUDirect RDMA off",
// "n3.mlx5_9 and mlx5_10 cables swapped", "n3.mlx5_5 on the other socket",
// "cable leaf4>spine1.5 at 50%", "leaf uplinks at 50%
// of the design's", "static ECMP instead of adaptive routing", "ECMP collisions (hash draw 3)";
// with `hosts` (what the cluster calls node i), "node03.mlx5_5 port at 50%".
std::string fault_name(const ElementFault& fault,
                       const models::NodeSpec& node,
                       const std::vector<std::string>& hosts = {});

// What to look at on the cluster to confirm the fault, or tell it from the others of its group.
std::string fault_next_step(const ElementFault& fault);

// The fault as entries of a faults array (docs/scenarios.md, `railsim step --faults`), in JSON
// text, so that a what-if run can reproduce it: link faults for a port, PCIe or cable, a
// {"gdr_off_node": N} entry for GPUDirect RDMA, a {"pcie": "nN.NIC", "parent": "hbB"} entry for
// a NIC on the other socket; none for swapped cables, fewer uplinks, static ECMP or another
// hash draw, which are changes of the system file's /system/fabric (cabling, oversubscription,
// routing, ecmp_seed) instead.
std::vector<std::string> fault_entries(const ElementFault& fault, const models::SystemSpec& system);

// The design with faults in: GPUDirect RDMA, the cabling, a node's server or the fabric changed in
// the model's spec, link faults applied by `prepare` to each system built (predict's third
// argument).
struct FaultedDesign {
  CalibratedModel model;
  models::SystemPreparation prepare;
};

FaultedDesign with_faults(const CalibratedModel& design, const std::vector<ElementFault>& faults);

struct Explanation {
  std::vector<ElementFault> faults;  // none: the design as it is
  std::vector<double> predicted;     // per measurement, in its unit
  double sse = 0.0;                  // sum of squared ln(measured / predicted)
  double criterion = 0.0;            // n ln(SSE / n) + 2k ln p
  // Explanations of one group predict every measurement within 1% of each other, so the
  // measurements cannot tell them apart (a cable at half rate and its NIC's PCIe link trained
  // down to the same rate); groups are numbered from 0, the best.
  int group = 0;
};

// Runs work(i) for every i in [0, count), in any order and on any threads; each i writes only
// its own results. Empty: one after another.
using IndexLoop =
    std::function<void(std::size_t count, const std::function<void(std::size_t)>& work)>;

struct DiagnosisOptions {
  // The rate scales every port, PCIe and cable candidate is tried at before the best are fitted.
  std::vector<double> scales = {0.75, 0.5, 0.25};
  int fitted = 6;      // the single faults whose scales are fitted, and paired with each other
  IndexLoop for_each;  // how the model runs are spread (railsim diagnose: its parallel loop)
};

struct Diagnosis {
  std::vector<Measurement> measurements;  // those the model could run
  std::vector<std::string> notes;         // those it could not, and why
  std::vector<double> design;             // the design's prediction of each measurement
  int candidates = 0;                     // explanations evaluated
  std::vector<Explanation> ranked;        // best first, one per fault set
};

// `model.system.nodes` is the cluster's node count; the measurements are placed on it
// (cluster_measurements.hpp). Throws sim::InputError when no measurement can be predicted.
// The result is the same whatever options.for_each's order and threads.
Diagnosis diagnose(const CalibratedModel& model,
                   const MeasurementSet& measurements,
                   const DiagnosisOptions& options = {});

}  // namespace railsim::calibrate
