// File: tools/sweep/sweep_file.cpp
// Reading a sweep file: its JSON is read twice, once as a JsonDocument, whose getters give every
// error its JSON pointer, and once as plain ordered JSON, whose values (any JSON at all) are
// what the parameters set into the base.
#include "tools/sweep/sweep_file.hpp"

#include "models/scenario/json_reader.hpp"
#include "sim/input_file.hpp"
#include "tools/sweep/json_pointer_set.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>

namespace railsim::tools::sweep {
namespace {

using Json = nlohmann::ordered_json;
using models::scenario::JsonValue;
using models::scenario::ScenarioError;

// The base scenario as ordered JSON: the inline object, or the file a path names (relative to
// the sweep file's folder). Syntax errors in a base file name that file, by line and column.
Json read_base(const JsonValue& base, const Json& raw, const std::string& folder) {
  if (base.is_object()) {
    return raw;
  }
  if (!base.is_string()) {
    throw base.error("expected a scenario object or the path to a scenario file");
  }
  const std::string path = (std::filesystem::path(folder) / base.as_string()).string();
  std::string problem;
  const std::string text = sim::read_input_file(path, problem);
  if (!problem.empty()) {
    throw base.error(fmt::format("cannot read the base scenario {}: {}", path, problem));
  }
  const models::scenario::JsonDocument document = models::scenario::parse_json(text, path);
  if (!document.root().is_object()) {
    throw ScenarioError::in_file(path, "expected a scenario object");
  }
  return Json::parse(text);
}

std::string read_name(const JsonValue& value) {
  std::string name = value.as_string();
  if (name.empty()) {
    throw value.error("expected a non-empty name");
  }
  return name;
}

// Every pointer of "set", checked against the base; `set_by` remembers which parameter set a
// pointer first, so two parameters cannot fight over one value.
std::vector<std::string> read_pointers(const JsonValue& set,
                                       const Json& base,
                                       std::map<std::string, std::string>& set_by) {
  const std::vector<JsonValue> elements = set.elements();
  if (elements.empty()) {
    throw set.error("expected at least one JSON pointer to set");
  }
  std::vector<std::string> pointers;
  pointers.reserve(elements.size());
  for (const JsonValue& element : elements) {
    std::string pointer = element.as_string();
    if (const std::string problem = set_problem(base, pointer); !problem.empty()) {
      throw element.error(fmt::format("cannot set {} in the base scenario: {}", pointer, problem));
    }
    const auto [it, added] = set_by.emplace(pointer, element.json_pointer());
    if (!added) {
      throw element.error(fmt::format("{} is already set by {}", pointer, it->second));
    }
    pointers.push_back(std::move(pointer));
  }
  return pointers;
}

SweepParameter read_parameter(const JsonValue& parameter,
                              const Json& raw,
                              const Json& base,
                              std::map<std::string, std::string>& set_by) {
  parameter.expect_keys({"name", "set", "values", "labels"});
  SweepParameter out;
  const JsonValue name = parameter.at("name");
  out.name = read_name(name);
  if (out.name == "point") {
    throw name.error(R"("point" is the column that numbers the points: choose another name)");
  }
  out.pointers = read_pointers(parameter.at("set"), base, set_by);
  const JsonValue values = parameter.at("values");
  const std::size_t count = values.elements().size();
  if (count == 0) {
    throw values.error("expected at least one value");
  }
  out.values.reserve(count);
  for (const Json& value : raw.at("values")) {
    out.values.push_back(value.dump());
  }
  if (const auto labels = parameter.find("labels")) {
    const std::vector<JsonValue> elements = labels->elements();
    if (elements.size() != count) {
      throw labels->error(
          fmt::format("expected one label per value ({}), got {}", count, elements.size()));
    }
    out.labels.reserve(count);
    for (const JsonValue& label : elements) {
      out.labels.push_back(label.as_string());
    }
  }
  return out;
}

std::size_t count_points(const JsonValue& parameters, const SweepFile& sweep) {
  if (sweep.mode == SweepMode::kList) {
    const std::size_t count = sweep.parameters.front().values.size();
    for (std::size_t i = 1; i < sweep.parameters.size(); ++i) {
      const std::size_t other = sweep.parameters[i].values.size();
      if (other != count) {
        throw parameters.at(i).at("values").error(fmt::format(
            "list mode: expected {} values, as /parameters/0/values has, got {}", count, other));
      }
    }
    return count;
  }
  std::size_t points = 1;
  for (const SweepParameter& parameter : sweep.parameters) {
    points *= parameter.values.size();
    if (points > kMaxSweepPoints) {
      throw parameters.error(
          fmt::format("the grid has more than {} points: split the sweep", kMaxSweepPoints));
    }
  }
  return points;
}

}  // namespace

std::string fnv1a_64_hex(std::string_view bytes) {
  constexpr std::uint64_t kOffsetBasis = 14695981039346656037ULL;
  constexpr std::uint64_t kPrime = 1099511628211ULL;
  std::uint64_t hash = kOffsetBasis;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= kPrime;
  }
  return fmt::format("{:016x}", hash);
}

SweepFile parse_sweep(std::string_view text, const std::string& file, const std::string& folder) {
  const models::scenario::JsonDocument document = models::scenario::parse_json(text, file);
  const JsonValue root = document.root();
  if (!root.is_object()) {
    throw root.error("expected a sweep object with \"name\", \"base\" and \"parameters\"");
  }
  // The same text JsonDocument accepted, so this parse cannot fail.
  const Json raw = Json::parse(text);
  root.expect_keys({"name", "description", "base", "mode", "parameters"});
  SweepFile out;
  out.file = file;
  out.hash = fnv1a_64_hex(text);
  out.name = read_name(root.at("name"));
  if (const auto description = root.find("description")) {
    description->as_string();
  }
  const Json base = read_base(root.at("base"), raw.at("base"), folder);
  out.base_json = base.dump();
  if (const auto mode = root.find("mode")) {
    out.mode = mode->as_enum<SweepMode>({{"grid", SweepMode::kGrid}, {"list", SweepMode::kList}});
  }
  const JsonValue parameters = root.at("parameters");
  const std::vector<JsonValue> elements = parameters.elements();
  if (elements.empty()) {
    throw parameters.error("expected at least one parameter");
  }
  std::map<std::string, std::string> set_by;
  std::map<std::string, std::string> named_at;
  out.parameters.reserve(elements.size());
  for (std::size_t i = 0; i < elements.size(); ++i) {
    SweepParameter parameter =
        read_parameter(elements[i], raw.at("parameters").at(i), base, set_by);
    const auto [it, added] = named_at.emplace(parameter.name, elements[i].json_pointer());
    if (!added) {
      throw elements[i].at("name").error(
          fmt::format("parameter \"{}\" is already defined at {}", parameter.name, it->second));
    }
    out.parameters.push_back(std::move(parameter));
  }
  out.points = count_points(parameters, out);
  return out;
}

SweepFile read_sweep_file(const std::string& path) {
  std::string problem;
  const std::string text = sim::read_input_file(path, problem);
  if (!problem.empty()) {
    throw ScenarioError::in_file(path, "cannot read: " + problem);
  }
  return parse_sweep(text, path, std::filesystem::path(path).parent_path().string());
}

}  // namespace railsim::tools::sweep
