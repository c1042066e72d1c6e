// File: tools/sweep/link_heatmap.cpp
#include "tools/sweep/link_heatmap.hpp"

#include "tools/sweep/results_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace railsim::tools::sweep {

std::optional<LinkHeatmap> link_heatmap(const SweepResults& results) {
  if (results.links.empty()) {
    return std::nullopt;
  }
  const ResultsView view = make_view(results);
  // Link names in first-seen order, each with its highest utilisation.
  std::vector<std::string> names;
  std::vector<double> peak;
  std::map<std::string, std::size_t> index;
  for (const PointLinks& point : results.links) {
    for (const auto& [name, utilisation] : point.links) {
      const auto [it, added] = index.emplace(name, names.size());
      if (added) {
        names.push_back(name);
        peak.push_back(0.0);
      }
      if (std::isfinite(utilisation)) {
        peak[it->second] = std::max(peak[it->second], utilisation);
      }
    }
  }
  std::vector<std::size_t> kept(names.size());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    kept[i] = i;
  }
  // The busiest first, ties to the earlier link.
  std::stable_sort(kept.begin(), kept.end(),
                   [&](std::size_t a, std::size_t b) { return peak[a] > peak[b]; });
  kept.resize(std::min(kept.size(), kMaxHeatmapLinks));
  std::vector<std::size_t> row_of(names.size(), kept.size());  // link -> its row, or none
  for (std::size_t r = 0; r < kept.size(); ++r) {
    row_of[kept[r]] = r;
  }
  std::map<std::size_t, std::size_t> first_row;  // point -> its first row
  for (std::size_t r = results.rows.size(); r-- > 0;) {
    first_row[results.rows[r].point] = r;
  }
  LinkHeatmap out;
  report::Heatmap& map = out.map;
  map.title = "fabric link utilisation per point";
  map.row_title = "link";
  map.value_label = "utilisation";
  map.value_unit = "%";
  map.scale_min = 0.0;
  for (const std::size_t p : view.varying) {
    map.column_title += map.column_title.empty() ? "" : " / ";
    map.column_title += view.parameters[p].name;
  }
  if (map.column_title.empty()) {
    map.column_title = "point";
  }
  map.row_labels.reserve(kept.size());
  for (const std::size_t i : kept) {
    map.row_labels.push_back(names[i]);
  }
  map.column_labels.reserve(results.links.size());
  for (const PointLinks& point : results.links) {
    const auto row = first_row.find(point.point);
    std::string label;
    if (row != first_row.end()) {
      for (const std::size_t p : view.varying) {
        label += label.empty() ? "" : "/";
        label += view.texts[row->second][p];
      }
    }
    map.column_labels.push_back(label.empty() ? fmt::format("point {}", point.point) : label);
  }
  map.values.assign(kept.size(), std::vector<double>(results.links.size(), 0.0));
  for (std::size_t c = 0; c < results.links.size(); ++c) {
    for (const auto& [name, utilisation] : results.links[c].links) {
      const std::size_t r = row_of[index.at(name)];
      if (r < kept.size()) {
        map.values[r][c] = utilisation * 100.0;
      }
    }
  }
  out.busiest = {fmt::format("The {} busiest links", std::min(kept.size(), kNamedBusiestLinks)),
                 {"link", "highest utilisation", fmt::format("at {}", map.column_title)},
                 {}};
  for (std::size_t r = 0; r < kept.size() && r < kNamedBusiestLinks; ++r) {
    const std::vector<double>& row = map.values[r];
    std::size_t at = 0;  // the first point of the link's highest utilisation
    for (std::size_t c = 1; c < row.size(); ++c) {
      if (std::isfinite(row[c]) && (!std::isfinite(row[at]) || row[c] > row[at])) {
        at = c;
      }
    }
    out.busiest.rows.push_back(
        {map.row_labels[r], fmt::format("{:.1f}%", peak[kept[r]] * 100.0), map.column_labels[at]});
  }
  out.caption =
      "Utilisation of each fabric link (NIC ports and switch-to-switch cables) that "
      "carried traffic, busiest first: bytes / (capacity x step time), per point; 0 where a "
      "link carried nothing at that point.";
  if (kept.size() < names.size()) {
    out.caption += fmt::format(
        " Only the {} busiest of {} links are shown (by their highest "
        "utilisation at any point).",
        kept.size(), names.size());
  }
  return out;
}

}  // namespace railsim::tools::sweep
