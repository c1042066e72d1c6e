// File: calibrate/check/check_finding.hpp
// One result of `railsim check`: which layer of the acceptance order it belongs to, what was
// checked on which element, the evidence (file:line), what the design or baseline expects, what
// was measured, the verdict, how much a failure costs, and what to look at next.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace railsim::calibrate::check {

// The order operators accept a cluster in: each layer assumes the ones before it pass.
enum class CheckLayer { kTopology, kAffinity, kLinkState, kRdma, kMultiNode, kNccl };

enum class Verdict { kPass, kFail, kSkipped };

// What a failure costs: kCritical, the element carries no traffic (a port down, a NIC missing);
// kMajor, it carries less than designed (a slow rate, a far NIC); kMinor, nothing is lost but
// it is not as designed (a CPU list).
enum class Severity { kNone, kMinor, kMajor, kCritical };

// "topology", "affinity", "link state", "rdma", "multi-node", "nccl".
const char* to_string(CheckLayer layer);
// "pass", "FAIL", "skipped".
const char* to_string(Verdict verdict);
// "", "minor", "major", "critical".
const char* to_string(Severity severity);

struct Finding {
  CheckLayer layer = CheckLayer::kTopology;
  std::string check;     // "GPU-NIC distance"
  std::string element;   // "node-a.GPU3", "node-a.mlx5_2", "node-a/node-b", a run's label
  std::string evidence;  // "topo/node-a.txt:5"
  std::string expected;
  std::string measured;
  Verdict verdict = Verdict::kPass;
  Severity severity = Severity::kNone;
  std::string next;  // what to check next (failures), or why it was skipped

  // A failure of `level`, with what to check next.
  void fail(Severity level, std::string what_next) {
    verdict = Verdict::kFail;
    severity = level;
    next = std::move(what_next);
  }
};

struct CheckReport {
  std::string source;             // the manifest or directory
  std::string design;             // the system checked against
  std::vector<Finding> findings;  // in layer order, then in the order of the inputs

  bool failed() const;
};

}  // namespace railsim::calibrate::check
