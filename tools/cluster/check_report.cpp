// File: tools/cluster/check_report.cpp
#include "tools/cluster/check_report.hpp"

#include "calibrate/check/rdma_pair_check.hpp"
#include "sim/bytes.hpp"
#include "sim/median.hpp"
#include "tools/cluster/input_relative.hpp"
#include "tools/report/bar_chart.hpp"
#include "tools/report/heatmap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace railsim::tools {
namespace {

using calibrate::check::CheckLayer;
using calibrate::check::Finding;
using calibrate::check::PairFigure;
using calibrate::check::Verdict;

constexpr CheckLayer kLayers[] = {CheckLayer::kTopology,  CheckLayer::kAffinity,
                                  CheckLayer::kLinkState, CheckLayer::kRdma,
                                  CheckLayer::kMultiNode, CheckLayer::kNccl};

report::Table summary_table(const calibrate::check::CheckReport& r) {
  report::Table table{
      "Checks per layer, in acceptance order", {"layer", "pass", "fail", "skipped", "verdict"}, {}};
  for (const CheckLayer layer : kLayers) {
    int counts[3] = {0, 0, 0};
    for (const Finding& f : r.findings) {
      if (f.layer == layer) {
        ++counts[static_cast<int>(f.verdict)];
      }
    }
    if (counts[0] + counts[1] + counts[2] == 0) {
      continue;
    }
    table.rows.push_back({to_string(layer), std::to_string(counts[0]), std::to_string(counts[1]),
                          std::to_string(counts[2]),
                          counts[1] > 0 ? "FAIL" : (counts[0] > 0 ? "pass" : "skipped")});
    table.row_classes.emplace_back(counts[1] > 0 ? "fail" : "");
  }
  return table;
}

// The findings of one layer, failures coloured, their evidence relative to the cluster's folder.
report::Table findings_table(const calibrate::check::CheckReport& r,
                             CheckLayer layer,
                             const std::string& folder) {
  report::Table table{
      "",
      {"verdict", "severity", "check", "element", "evidence", "expected", "measured", "next"},
      {}};
  for (const Finding& f : r.findings) {
    if (f.layer == layer) {
      table.rows.push_back({to_string(f.verdict), to_string(f.severity), f.check, f.element,
                            relative_to(f.evidence, folder), f.expected, f.measured, f.next});
      table.row_classes.emplace_back(f.verdict == Verdict::kFail ? "fail" : "");
    }
  }
  return table;
}

// Each perftest population (one test at one size): its figures.
std::vector<std::vector<PairFigure>> populations(
    const calibrate::parse::ClusterEvidence& evidence) {
  std::vector<std::vector<PairFigure>> out;
  std::map<std::tuple<std::string, std::int64_t>, std::size_t> index;
  for (const calibrate::parse::PairEvidence& pair : evidence.pairs) {
    if (const std::optional<PairFigure> f = calibrate::check::pair_figure(pair)) {
      const auto [it, added] = index.try_emplace({pair.test, f->size}, out.size());
      if (added) {
        out.emplace_back();
      }
      out[it->second].push_back(*f);
    }
  }
  return out;
}

// The worse or the better of two figures, NaN standing for none yet.
double worse(double a, double b, bool bandwidth) {
  if (std::isnan(a)) {
    return b;
  }
  return bandwidth ? std::min(a, b) : std::max(a, b);
}

double better(double a, double b, bool bandwidth) {
  if (std::isnan(a)) {
    return b;
  }
  return bandwidth ? std::max(a, b) : std::min(a, b);
}

void add_population(report::Report& page,
                    const calibrate::parse::ClusterEvidence& evidence,
                    const std::vector<PairFigure>& figures) {
  const PairFigure& first = figures.front();
  const std::string unit = first.bandwidth ? "GB/s" : "us";
  const std::string what =
      fmt::format("{} at {}", first.pair->test, sim::size_text(sim::Bytes{first.size}));
  std::vector<std::string> names;
  names.reserve(evidence.nodes.size());
  for (const calibrate::parse::NodeEvidence& n : evidence.nodes) {
    names.push_back(n.name);
  }
  const auto at = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  report::Heatmap map;
  map.title = what + ", node x node (the worst over the pair's NICs)";
  map.row_labels = names;
  map.column_labels = names;
  map.values.assign(names.size(), std::vector<double>(names.size(), kNone));
  map.row_title = "node";
  map.column_title = "node";
  map.value_label = first.bandwidth ? "bandwidth" : "latency";
  map.value_unit = unit;
  std::vector<double> per_node(names.size(), kNone);
  std::vector<double> values;
  values.reserve(figures.size());
  for (const PairFigure& f : figures) {
    const std::size_t a = at(f.pair->node_a);
    const std::size_t b = at(f.pair->node_b);
    map.values[a][b] = map.values[b][a] = worse(map.values[a][b], f.value, f.bandwidth);
    values.push_back(f.value);
  }
  // Over pairs, each the worse over its NICs: a node with one slow NIC has no pair without it.
  for (std::size_t a = 0; a < names.size(); ++a) {
    for (std::size_t b = 0; b < names.size(); ++b) {
      if (!std::isnan(map.values[a][b])) {
        per_node[a] = better(per_node[a], map.values[a][b], first.bandwidth);
      }
    }
  }
  page.add_figure(
      "rdma-" + what, report::svg_heatmap(map),
      fmt::format("{}: each pair's figure, the worse over its NICs; grey: not measured", what));
  report::BarChart bars;
  // A slow node slows every pair it is in, and its partners each only one: so a node's best pair
  // singles it out, where its worst pair would show its partners as slow as it is.
  bars.title = what + ", each node's best pair";
  bars.category_title = "node";
  bars.value_label = map.value_label;
  bars.value_unit = unit;
  for (std::size_t n = 0; n < names.size(); ++n) {
    bars.bars.push_back({names[n], per_node[n]});
  }
  bars.reference = sim::median(std::move(values));
  bars.reference_label = "median";
  page.add_figure(
      "nodes-" + what, report::svg_bar_chart(bars),
      fmt::format("{}: the best pair of each node against the population's median: a node "
                  "below it is slow with every partner",
                  what));
}

}  // namespace

report::Report check_report_page(const calibrate::check::CheckReport& r,
                                 const calibrate::parse::ClusterEvidence& evidence) {
  report::Report page(fmt::format("railsim check: {} against {}", r.source, r.design));
  page.add_paragraph(r.failed() ? "At least one check failed: read the layers from the top, "
                                  "since later failures are often consequences of earlier ones."
                                : "Every check that ran passed.");
  page.add_table(summary_table(r));
  for (const std::vector<PairFigure>& population : populations(evidence)) {
    if (population.size() >= 2) {
      add_population(page, evidence, population);
    }
  }
  const std::string folder = input_folder(evidence.source);
  for (const CheckLayer layer : kLayers) {
    report::Table table = findings_table(r, layer, folder);
    if (!table.rows.empty()) {
      page.add_heading(to_string(layer));
      page.add_table(std::move(table));
    }
  }
  return page;
}

}  // namespace railsim::tools
