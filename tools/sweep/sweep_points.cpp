// File: tools/sweep/sweep_points.cpp
// Expanding a sweep into points and building each point's document.
#include "tools/sweep/sweep_points.hpp"

#include "sim/assert.hpp"
#include "sim/input_error.hpp"
#include "tools/sweep/json_pointer_set.hpp"
#include "tools/sweep/sweep_results.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace railsim::tools::sweep {
namespace {

using Json = nlohmann::ordered_json;

}  // namespace

std::vector<std::size_t> value_indices(const SweepFile& sweep, std::size_t point) {
  RAILSIM_ASSERT(point < sweep.points, "point index past the end of the sweep");
  std::vector<std::size_t> indices(sweep.parameters.size(), point);
  if (sweep.mode == SweepMode::kList) {
    return indices;
  }
  // Mixed radix: the last parameter is the fastest digit, so the first varies slowest.
  std::size_t rest = point;
  for (std::size_t i = sweep.parameters.size(); i-- > 0;) {
    const std::size_t radix = sweep.parameters[i].values.size();
    indices[i] = rest % radix;
    rest /= radix;
  }
  return indices;
}

std::string point_document(const SweepFile& sweep, std::size_t point) {
  const std::vector<std::size_t> indices = value_indices(sweep, point);
  Json document = Json::parse(sweep.base_json);
  for (std::size_t i = 0; i < sweep.parameters.size(); ++i) {
    const SweepParameter& parameter = sweep.parameters[i];
    const Json value = Json::parse(parameter.values[indices[i]]);
    for (std::size_t j = 0; j < parameter.pointers.size(); ++j) {
      const std::string problem = set_at_pointer(document, parameter.pointers[j], value);
      if (!problem.empty()) {
        throw sim::InputError(fmt::format("{}: /parameters/{}/set/{}: cannot set {}: {}",
                                          point_name(sweep, point), i, j, parameter.pointers[j],
                                          problem));
      }
    }
  }
  return document.dump();
}

std::vector<std::string> point_cells(const SweepFile& sweep, std::size_t point) {
  const std::vector<std::size_t> indices = value_indices(sweep, point);
  std::vector<std::string> cells;
  cells.reserve(sweep.parameters.size());
  for (std::size_t i = 0; i < sweep.parameters.size(); ++i) {
    const SweepParameter& parameter = sweep.parameters[i];
    cells.push_back(parameter.labels.empty() ? parameter.values[indices[i]]
                                             : Json(parameter.labels[indices[i]]).dump());
  }
  return cells;
}

std::string point_name(const SweepFile& sweep, std::size_t point) {
  const std::vector<std::string> cells = point_cells(sweep, point);
  std::string values;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    values +=
        fmt::format("{}{}={}", i == 0 ? "" : ", ", sweep.parameters[i].name, cell_text(cells[i]));
  }
  return fmt::format("{} point {} ({})", sweep.file, point, values);
}

}  // namespace railsim::tools::sweep
