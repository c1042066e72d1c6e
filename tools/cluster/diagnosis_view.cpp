// File: tools/cluster/diagnosis_view.cpp
#include "tools/cluster/diagnosis_view.hpp"

#include "calibrate/check/nccl_run_check.hpp"
#include "models/fault/fault_injection.hpp"
#include "sim/bytes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace railsim::tools {

std::string DiagnosisView::name(const models::ElementFault& fault) const {
  return models::fault_name(fault, system.node, hosts);
}

std::string DiagnosisView::name(const calibrate::diagnose::Explanation& explanation) const {
  if (explanation.faults.empty()) {
    return "no fault (the design as it is)";
  }
  std::vector<std::string> names;
  names.reserve(explanation.faults.size());
  for (const models::ElementFault& f : explanation.faults) {
    names.push_back(name(f));
  }
  return fmt::format("{}", fmt::join(names, " + "));
}

double DiagnosisView::rms_error(const calibrate::diagnose::Explanation& explanation) const {
  return std::sqrt(explanation.sse / static_cast<double>(diagnosis.measurements.size()));
}

double DiagnosisView::best_rms_error() const {
  double best = rms_error(diagnosis.ranked.front());
  for (const calibrate::diagnose::Explanation& e : diagnosis.ranked) {
    best = std::min(best, rms_error(e));
  }
  return best;
}

std::string DiagnosisView::unexplained_note() const {
  if (explained()) {
    return {};
  }
  return fmt::format(
      "no candidate explains the measurements (best rms {:.2f}%, where the model predicts healthy "
      "clusters within {:.0f}%): what follows only comes closest; check the design (--system) and "
      "what the logs ran first",
      100.0 * best_rms_error(), 100.0 * kExplainedRmsError);
}

std::string DiagnosisView::cut_short_note() const {
  const calibrate::diagnose::Diagnosis& d = diagnosis;
  if (!d.cut_short) {
    return {};
  }
  const std::string left =
      d.left_unpredicted == 0
          ? std::string("every single fault the screen kept was predicted in full")
          : fmt::format(
                "{} single faults screened were not predicted in full (at their grid scales "
                "none of them can come closer than {:.2f}% rms)",
                d.left_unpredicted,
                100.0 * std::sqrt(d.left_bound_sse / static_cast<double>(d.measurements.size())));
  return fmt::format(
      "the time budget ended the search: {}, no scale was fitted and no pair tried; what follows "
      "ranks what was predicted in full",
      left);
}

std::string DiagnosisView::cost_note() const {
  const calibrate::diagnose::Diagnosis& d = diagnosis;
  return fmt::format(
      "{} model runs, {:.1f} per explanation; the {} ranked fall into {} groups the "
      "measurements can tell apart",
      d.model_runs, static_cast<double>(d.model_runs) / std::max(1, d.candidates), d.ranked.size(),
      d.distinct);
}

std::vector<std::string> DiagnosisView::entries(
    const calibrate::diagnose::Explanation& explanation) const {
  std::vector<std::string> all;
  for (const models::ElementFault& f : explanation.faults) {
    const std::vector<std::string> some = models::fault_entries(f, system);
    all.insert(all.end(), some.begin(), some.end());
  }
  return all;
}

double DiagnosisView::design_figure(std::size_t i) const { return diagnosis.design.at(i); }

std::vector<std::size_t> DiagnosisView::changed(
    const calibrate::diagnose::Explanation& explanation) const {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < explanation.predicted.size(); ++i) {
    if (std::abs(explanation.predicted[i] / design_figure(i) - 1.0) >= 1e-3) {
      rows.push_back(i);
    }
  }
  return rows;
}

std::string DiagnosisView::describe(const calibrate::fit::Measurement& m) const {
  std::vector<std::string> nodes;
  nodes.reserve(m.node_ids.size());
  for (const int n : m.node_ids) {
    nodes.push_back(static_cast<std::size_t>(n) < hosts.size() ? hosts[static_cast<std::size_t>(n)]
                                                               : fmt::format("n{}", n));
  }
  const std::string size = sim::size_text(sim::Bytes{m.size_bytes});
  if (m.kind == calibrate::fit::MeasurementKind::kCollectiveTime) {
    return fmt::format("{} {} {} x{}", models::op_name(m.op), size, fmt::join(nodes, ","),
                       m.gpus_per_node);
  }
  const std::vector<int> compute = models::compute_nic_indices(system.node);
  return fmt::format(
      "{} {} {} {}",
      m.kind == calibrate::fit::MeasurementKind::kRdmaLatency ? "write_lat" : "write_bw", size,
      fmt::join(nodes, ">"),
      system.node.nics[static_cast<std::size_t>(compute.at(static_cast<std::size_t>(m.nic)))].name);
}

}  // namespace railsim::tools
