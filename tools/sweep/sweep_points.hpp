// File: tools/sweep/sweep_points.hpp
// The points of a sweep: which value of each parameter point i takes (grid: mixed radix with
// the last parameter fastest; list: the i-th of each), its scenario document (a copy of the base
// with every pointer set) and the cells that identify it in the outputs.
#pragma once

#include "tools/sweep/sweep_file.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace railsim::tools::sweep {

// For each parameter, the index into its values that `point` (0 <= point < sweep.points) takes.
std::vector<std::size_t> value_indices(const SweepFile& sweep, std::size_t point);

// The scenario document of `point` as JSON text, keys in the base's order. A pointer that an
// earlier parameter's value made unreachable is an InputError naming the sweep file, the point
// and the parameter's pointer in the sweep file.
std::string point_document(const SweepFile& sweep, std::size_t point);

// For each parameter, the JSON text that stands for the point's value in the outputs: its label
// as a JSON string when the parameter has labels, else the value itself.
std::vector<std::string> point_cells(const SweepFile& sweep, std::size_t point);

// "rail.json point 7 (nodes=4, rails=aligned)": names a point in its errors.
std::string point_name(const SweepFile& sweep, std::size_t point);

}  // namespace railsim::tools::sweep
