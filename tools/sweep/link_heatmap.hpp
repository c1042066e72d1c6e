// File: tools/sweep/link_heatmap.hpp
// The link heatmap of a sweep's report: how busy each fabric link was at each point, for the
// sweeps whose points measure links (training steps).
#pragma once

#include "tools/report/heatmap.hpp"
#include "tools/report/html_table.hpp"
#include "tools/sweep/sweep_results.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace railsim::tools::sweep {

// The heatmap shows at most this many links, the busiest (by their highest utilisation).
constexpr std::size_t kMaxHeatmapLinks = 256;

// The table beside it names this many, busiest first: with hundreds of rows the heatmap can label
// only some, and the hot link must be named, not only found in a tooltip.
constexpr std::size_t kNamedBusiestLinks = 10;

struct LinkHeatmap {
  report::Heatmap map;
  std::string caption;
  report::Table busiest;  // link, its highest utilisation, the point where it had it
};

// Rows: the links that carried traffic at any point (the kMaxHeatmapLinks busiest), busiest
// first (ties in link order), so that the first row, always labelled, is the hottest link;
// columns: the points that measured links; values: utilisation in %. Nothing when no point
// measured links (collective points; a merged sweep).
[[nodiscard]] std::optional<LinkHeatmap> link_heatmap(const SweepResults& results);

}  // namespace railsim::tools::sweep
