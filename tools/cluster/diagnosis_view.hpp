// File: tools/cluster/diagnosis_view.hpp
// DiagnosisView: a diagnosis with what its printers need to speak of it in the cluster's own
// names: faults and measurements named after the cluster's hosts, each explanation's error, the
// faults-file entries that reproduce it, and the measurements it changes. Shared by the text and
// JSON output of `railsim diagnose` and its report page.
#pragma once

#include "calibrate/check/check_finding.hpp"
#include "calibrate/diagnose/fault_diagnosis.hpp"
#include "models/fault/element_fault.hpp"
#include "models/system/system.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace railsim::tools {

// The rms error within which an explanation explains the measurements: the model's own accuracy
// on healthy clusters, whose real nccl-tests logs it predicts within 15% wherever it runs what
// NCCL ran (tests/models/collective/nccl_tests_logs_test.cpp, docs/validation.md).
inline constexpr double kExplainedRmsError = 0.15;

// The text and the report page list at most this many explanations of one group, then say how
// many more there are and of what kinds: where the measurements cannot tell hundreds apart (every
// cable swap of every node of a healthy cluster, say), a line each would bury the ranking. The
// JSON lists every one.
inline constexpr std::size_t kListedMembers = 8;

// One group of the ranking as the text lists it: its first explanations, and a line for the rest
// ("539 more alike: 539 cable swaps on 20 nodes"; empty when none are left out).
struct ListedGroup {
  std::vector<const calibrate::diagnose::Explanation*> shown;
  std::string more;
};

struct DiagnosisView {
  std::string source;  // the cluster's manifest or directory
  std::string design;  // as --system named it
  models::SystemSpec system;
  calibrate::diagnose::Diagnosis diagnosis;
  std::vector<std::string> hosts;  // what the cluster calls node i
  // Where NCCL's own INFO lines contradict the design (network, GPUDirect RDMA, channels):
  // the job's facts, which no explanation has to be fitted for.
  std::vector<calibrate::check::Finding> nccl_setup;

  std::string name(const models::ElementFault& fault) const;

  // Its faults joined by " + ", or "no fault (the design as it is)".
  std::string name(const calibrate::diagnose::Explanation& explanation) const;

  // The root mean square of the log errors: about the typical relative error.
  double rms_error(const calibrate::diagnose::Explanation& explanation) const;

  // The smallest rms error of any explanation evaluated, and whether it is within
  // kExplainedRmsError: whether anything explains the measurements.
  double best_rms_error() const;

  bool explained() const { return best_rms_error() <= kExplainedRmsError; }

  // The sentence that says nothing explains the measurements; empty when something does.
  std::string unexplained_note() const;

  // The sentence that says the time budget ended the search early, and what it left; empty when
  // the search ran to its end.
  std::string cut_short_note() const;

  // The first `top` groups of the ranking, each with at most kListedMembers explanations shown.
  std::vector<ListedGroup> listed_groups(int top) const;

  // What the search cost and how much it could tell apart: "2,345 model runs, 5.4 per
  // explanation; the 327 ranked fall into 40 groups the measurements can tell apart".
  std::string cost_note() const;

  // The faults-file entries (JSON text) of all its faults.
  std::vector<std::string> entries(const calibrate::diagnose::Explanation& explanation) const;

  // The design's own prediction of measurement i.
  double design_figure(std::size_t i) const;

  // The measurements whose prediction the explanation moves from the design's by 0.1% or more.
  std::vector<std::size_t> changed(const calibrate::diagnose::Explanation& explanation) const;

  // "write_bw 8 MiB node2>node3 mlx5_0", "all_reduce 1 GiB node0,node1 x8".
  std::string describe(const calibrate::fit::Measurement& measurement) const;
};

}  // namespace railsim::tools
