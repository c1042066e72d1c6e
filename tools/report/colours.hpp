// File: tools/report/colours.hpp
// The report's colours: a fixed categorical palette for series (Okabe-Ito, distinguishable with
// the common colour-vision deficiencies) and a sequential scale for heatmaps (viridis, which is
// perceptually uniform, colour-blind friendly and still ordered when printed in grey).
#pragma once

#include <cstddef>
#include <string>

namespace railsim::tools::report {

// The colour of series `index` as "#rrggbb"; the 8 colours repeat after the last.
[[nodiscard]] std::string series_colour(std::size_t index);

// The number of distinct colours series_colour returns.
[[nodiscard]] std::size_t series_colour_count();

// The viridis colour at `fraction` of the scale as "#rrggbb": 0 -> "#440154" (dark purple),
// 1 -> "#fde725" (yellow); outside [0, 1] clamped. Linear in RGB between 9 sampled stops.
[[nodiscard]] std::string sequential_colour(double fraction);

// Whether text drawn on sequential_colour(fraction) should be white rather than black.
[[nodiscard]] bool sequential_colour_is_dark(double fraction);

}  // namespace railsim::tools::report
