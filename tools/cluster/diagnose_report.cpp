// File: tools/cluster/diagnose_report.cpp
#include "tools/cluster/diagnose_report.hpp"

#include "tools/cluster/input_relative.hpp"
#include "tools/report/line_chart.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

using calibrate::diagnose::Explanation;
using calibrate::fit::Measurement;
using calibrate::fit::MeasurementKind;

constexpr int kDrawnGroups = 3;

report::Table ranked_table(const DiagnosisView& view, int top) {
  report::Table table{
      "Explanations, best first; one rank holds those the measurements cannot "
      "tell apart",
      {"rank", "explanation", "rms error", "criterion", "to confirm it"},
      {}};
  const std::vector<ListedGroup> groups = view.listed_groups(top);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const Explanation* e : groups[g].shown) {
      std::vector<std::string> next;
      next.reserve(e->faults.size());
      for (const models::ElementFault& f : e->faults) {
        next.push_back(models::fault_next_step(f));
      }
      table.rows.push_back(
          {std::to_string(g + 1), view.name(*e), fmt::format("{:.2f}%", 100.0 * view.rms_error(*e)),
           fmt::format("{:.1f}", e->criterion), fmt::format("{}", fmt::join(next, "; "))});
    }
    if (!groups[g].more.empty()) {
      table.rows.push_back({std::to_string(g + 1), "or " + groups[g].more, "", "", ""});
    }
  }
  return table;
}

// Predicted against measured for the measurements of one kind: a scatter per explanation, and the
// diagonal they would lie on.
report::LineChart versus_chart(const DiagnosisView& view, MeasurementKind kind) {
  const calibrate::diagnose::Diagnosis& d = view.diagnosis;
  const std::string unit = calibrate::fit::measured_unit(kind);
  report::LineChart chart;
  chart.title = fmt::format("Predicted against measured ({})",
                            kind == MeasurementKind::kRdmaBandwidth ? "RDMA bandwidth"
                            : kind == MeasurementKind::kRdmaLatency ? "RDMA latency"
                                                                    : "collective time");
  // Log-log: the measurements span decades (2 B to 16 GiB), and a relative error is the same
  // distance from the diagonal at every size.
  chart.x = {"measured", unit, report::AxisScale::kLog10, report::TickFormat::kNumber, false};
  chart.y = {"predicted", unit, report::AxisScale::kLog10, report::TickFormat::kNumber, false};
  double low = std::numeric_limits<double>::infinity();
  double high = 0.0;
  for (const Measurement& m : d.measurements) {
    if (m.kind == kind) {
      low = std::min(low, m.measured);
      high = std::max(high, m.measured);
    }
  }
  chart.series.push_back({"predicted = measured", {{low, low}, {high, high}}, true, false});
  int drawn = -1;
  for (const Explanation& e : d.ranked) {
    const bool design = e.faults.empty();
    if (!design && (e.group == drawn || e.group >= kDrawnGroups)) {
      continue;  // one member per group: its others predict the same within 1%
    }
    drawn = design ? drawn : e.group;
    report::Series series{
        fmt::format("{}{}", design ? "" : fmt::format("{}. ", e.group + 1), view.name(e)),
        {},
        false,
        true};
    for (std::size_t i = 0; i < d.measurements.size(); ++i) {
      if (d.measurements[i].kind == kind) {
        series.points.push_back({d.measurements[i].measured, e.predicted[i]});
      }
    }
    chart.series.push_back(std::move(series));
  }
  return chart;
}

report::Table rows_table(const DiagnosisView& view) {
  const calibrate::diagnose::Diagnosis& d = view.diagnosis;
  const Explanation& first = d.ranked.front();
  report::Table table{fmt::format("The measurements {} changes", view.name(first)),
                      {"row", "measurement", "measured", "design", "explained"},
                      {}};
  const std::string folder = input_folder(view.source);
  for (const std::size_t i : view.changed(first)) {
    const Measurement& m = d.measurements[i];
    const char* unit = calibrate::fit::measured_unit(m.kind);
    table.rows.push_back({relative_to(m.source, folder), view.describe(m),
                          fmt::format("{:.3f} {}", m.measured, unit),
                          fmt::format("{:.3f} {}", view.design_figure(i), unit),
                          fmt::format("{:.3f} {}", first.predicted[i], unit)});
  }
  return table;
}

}  // namespace

report::Report diagnose_report_page(const DiagnosisView& view, int top) {
  const calibrate::diagnose::Diagnosis& d = view.diagnosis;
  report::Report page(fmt::format("railsim diagnose: {}", view.source));
  page.add_paragraph(fmt::format("{} measurements against {}; {} explanations evaluated: {}.",
                                 d.measurements.size(), view.design, d.candidates,
                                 view.cost_note()));
  for (const std::string& note : {view.cut_short_note(), view.unexplained_note()}) {
    if (!note.empty()) {
      page.add_paragraph(note + ".");
    }
  }
  page.add_table(ranked_table(view, top));
  for (const MeasurementKind kind : {MeasurementKind::kRdmaBandwidth, MeasurementKind::kRdmaLatency,
                                     MeasurementKind::kCollectiveTime}) {
    if (std::any_of(d.measurements.begin(), d.measurements.end(),
                    [kind](const Measurement& m) { return m.kind == kind; })) {
      const report::LineChart chart = versus_chart(view, kind);
      page.add_figure(chart.title, report::svg_line_chart(chart),
                      "Each point is one measurement; an explanation that reproduces them lies "
                      "on the diagonal.");
    }
  }
  if (!d.ranked.front().faults.empty()) {
    page.add_table(rows_table(view));
  }
  return page;
}

}  // namespace railsim::tools
