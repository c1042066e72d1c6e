// File: tools/sweep/link_heatmap.hpp
// The link heatmap of a sweep's report: how busy each fabric link was at each point, for the
// sweeps whose points measure links (training steps).
#pragma once

#include "tools/report/heatmap.hpp"
#include "tools/sweep/sweep_results.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace railsim::tools::sweep {

// The heatmap shows at most this many links, the busiest (by their highest utilisation).
constexpr std::size_t kMaxHeatmapLinks = 256;

struct LinkHeatmap {
  report::Heatmap map;
  std::string caption;
};

// Rows: the links that carried traffic at any point (the kMaxHeatmapLinks busiest, in link
// order); columns: the points that measured links; values: utilisation in %. Nothing when no
// point measured links (collective points; a merged sweep).
[[nodiscard]] std::optional<LinkHeatmap> link_heatmap(const SweepResults& results);

}  // namespace railsim::tools::sweep
