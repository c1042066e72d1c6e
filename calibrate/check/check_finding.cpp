// File: calibrate/check/check_finding.cpp
#include "calibrate/check/check_finding.hpp"

#include "sim/assert.hpp"

#include <algorithm>

namespace railsim::calibrate::check {

const char* to_string(CheckLayer layer) {
  switch (layer) {
    case CheckLayer::kTopology:
      return "topology";
    case CheckLayer::kAffinity:
      return "affinity";
    case CheckLayer::kLinkState:
      return "link state";
    case CheckLayer::kRdma:
      return "rdma";
    case CheckLayer::kMultiNode:
      return "multi-node";
    case CheckLayer::kNccl:
      return "nccl";
  }
  RAILSIM_UNREACHABLE("a CheckLayer without a name");
}

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kSkipped:
      return "skipped";
  }
  RAILSIM_UNREACHABLE("a Verdict without a name");
}

const char* to_string(Severity severity) {
  switch (severity) {
    case Severity::kNone:
      return "";
    case Severity::kMinor:
      return "minor";
    case Severity::kMajor:
      return "major";
    case Severity::kCritical:
      return "critical";
  }
  RAILSIM_UNREACHABLE("a Severity without a name");
}

bool CheckReport::failed() const {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.verdict == Verdict::kFail; });
}

}  // namespace railsim::calibrate::check
