// File: tools/cluster/diagnosis_view.cpp
#include "tools/cluster/diagnosis_view.hpp"

#include "calibrate/check/nccl_run_check.hpp"
#include "models/fault/fault_injection.hpp"
#include "sim/bytes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

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

namespace {

using calibrate::diagnose::Explanation;

// What a count of explanations of one kind is called: "1 cable swap", "539 cable swaps".
std::string counted(std::size_t count, const Explanation& e) {
  if (e.faults.size() != 1) {
    return fmt::format("{} {}", count, count == 1 ? "pair of faults" : "pairs of faults");
  }
  const auto [one, many] = [&]() -> std::pair<const char*, const char*> {
    switch (e.faults[0].kind) {
      case models::FaultKind::kNicPort:
        return {"port", "ports"};
      case models::FaultKind::kNicPcie:
        return {"PCIe link", "PCIe links"};
      case models::FaultKind::kNicDown:
        return {"NIC down", "NICs down"};
      case models::FaultKind::kGdrOff:
        return {"node without GPUDirect RDMA", "nodes without GPUDirect RDMA"};
      case models::FaultKind::kCablesSwapped:
        return {"cable swap", "cable swaps"};
      case models::FaultKind::kNicOtherSocket:
        return {"NIC on the other socket", "NICs on the other socket"};
      case models::FaultKind::kSwitchCable:
        return {"switch cable", "switch cables"};
      case models::FaultKind::kEcmpDraw:
        return {"ECMP draw", "ECMP draws"};
      case models::FaultKind::kFewerUplinks:
      case models::FaultKind::kStaticEcmp:
      case models::FaultKind::kTopOfRack:
        break;
    }
    return {"fabric-wide fault", "fabric-wide faults"};
  }();
  return fmt::format("{} {}", count, count == 1 ? one : many);
}

// The nodes a kind lies on: named when there are at most kNamedNodes of them ("on node19",
// "on node3 and node4"), else counted ("on 20 nodes").
constexpr std::size_t kNamedNodes = 3;

std::string on_nodes(const std::vector<int>& nodes, const std::vector<std::string>& hosts) {
  if (nodes.size() > kNamedNodes) {
    return fmt::format("on {} nodes", nodes.size());
  }
  std::vector<std::string> names;
  names.reserve(nodes.size());
  for (const int node : nodes) {
    names.push_back(models::node_name(node, hosts));
  }
  const std::string last = names.back();
  names.pop_back();
  return names.empty() ? "on " + last : fmt::format("on {} and {}", fmt::join(names, ", "), last);
}

// "539 more alike: 530 cable swaps on 20 nodes, 9 ports on node3": the kinds in the order they
// first come, each with the nodes it lies on.
std::string more_alike(const std::vector<const Explanation*>& rest,
                       const std::vector<std::string>& hosts) {
  struct Kind {
    const Explanation* first;
    std::size_t count = 0;
    std::vector<int> nodes;
  };

  std::vector<Kind> kinds;
  for (const Explanation* e : rest) {
    const auto same = [&](const Kind& k) {
      return k.first->faults.size() == e->faults.size() &&
             (e->faults.size() != 1 || k.first->faults[0].kind == e->faults[0].kind);
    };
    auto kind = std::find_if(kinds.begin(), kinds.end(), same);
    if (kind == kinds.end()) {
      kind = kinds.insert(kinds.end(), Kind{e, 0, {}});
    }
    ++kind->count;
    if (e->faults.size() == 1 && models::on_a_node(e->faults[0].kind) &&
        std::find(kind->nodes.begin(), kind->nodes.end(), e->faults[0].node) == kind->nodes.end()) {
      kind->nodes.push_back(e->faults[0].node);
    }
  }
  std::vector<std::string> parts;
  parts.reserve(kinds.size());
  for (const Kind& k : kinds) {
    parts.push_back(k.nodes.empty() ? counted(k.count, *k.first)
                                    : fmt::format("{} {}", counted(k.count, *k.first),
                                                  on_nodes(k.nodes, hosts)));
  }
  return fmt::format("{} more alike: {}", rest.size(), fmt::join(parts, ", "));
}

}  // namespace

std::vector<ListedGroup> DiagnosisView::listed_groups(int top) const {
  std::vector<ListedGroup> groups;
  std::vector<const Explanation*> rest;
  const auto close = [&] {
    if (!rest.empty()) {
      groups.back().more = more_alike(rest, hosts);
      rest.clear();
    }
  };
  for (const Explanation& e : diagnosis.ranked) {
    if (e.group >= top) {
      break;  // ranked in group order
    }
    if (static_cast<std::size_t>(e.group) == groups.size()) {
      close();
      groups.emplace_back();
    }
    if (groups.back().shown.size() < kListedMembers) {
      groups.back().shown.push_back(&e);
    } else {
      rest.push_back(&e);
    }
  }
  close();
  return groups;
}

std::string DiagnosisView::cost_note() const {
  const calibrate::diagnose::Diagnosis& d = diagnosis;
  return fmt::format(
      "{} model runs, {:.1f} per explanation; the {} ranked fall into {} groups the "
      "measurements can tell apart",
      d.model_runs, static_cast<double>(d.model_runs) / std::max(1, d.candidates), d.ranked.size(),
      d.distinct());
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
