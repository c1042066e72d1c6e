// File: models/scenario/scenario_error.cpp
// The text of a ScenarioError: its location in front of its message.
#include "models/scenario/scenario_error.hpp"

#include <utility>

namespace railsim::models::scenario {
namespace {

// What goes in front of the message: "x.json: /fabric", "x.json:3:17", "x.json" or "".
std::string location(const std::string& file, const std::string& place, bool joined_by_colon) {
  if (file.empty()) {
    return place;
  }
  if (place.empty()) {
    return file;
  }
  return file + (joined_by_colon ? ":" : ": ") + place;
}

}  // namespace

ScenarioError::ScenarioError(std::string file, std::string json_pointer, std::string message)
    : ScenarioError(std::make_shared<const Where>(Where{
          Kind::kValue, std::move(file), std::move(json_pointer), 0, 0, std::move(message)})) {}

ScenarioError ScenarioError::in_text(std::string file,
                                     std::size_t line,
                                     std::size_t column,
                                     std::string message) {
  return ScenarioError(std::make_shared<const Where>(
      Where{Kind::kText, std::move(file), "", line, column, std::move(message)}));
}

ScenarioError ScenarioError::in_file(std::string file, std::string message) {
  return ScenarioError(std::make_shared<const Where>(
      Where{Kind::kFile, std::move(file), "", 0, 0, std::move(message)}));
}

ScenarioError::ScenarioError(std::shared_ptr<const Where> where)
    : sim::InputError(text_of(*where)), where_(std::move(where)) {}

std::string ScenarioError::text_of(const Where& where) {
  std::string prefix;
  switch (where.kind) {
    case Kind::kValue:
      prefix = location(where.file, where.json_pointer.empty() ? "/" : where.json_pointer, false);
      break;
    case Kind::kText:
      prefix = location(where.file, std::to_string(where.line) + ":" + std::to_string(where.column),
                        true);
      break;
    case Kind::kFile:
      prefix = where.file;
      break;
  }
  return prefix.empty() ? where.message : prefix + ": " + where.message;
}

}  // namespace railsim::models::scenario
