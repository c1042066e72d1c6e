// File: models/scenario/scenario_error.hpp
// ScenarioError: bad input in a scenario file, located by file and JSON pointer (RFC 6901), so
// that a message reads `scenarios/x.json: /fabric/spine/count: expected an integer >= 1, got -2`
// (docs/scenarios.md, Errors). Only the scenario readers throw it; the CLI catches it as the
// sim::InputError it is, prints `railsim: error: ...` and exits with status 2.
#pragma once

#include "sim/input_error.hpp"

#include <cstddef>
#include <memory>
#include <string>

namespace railsim::models::scenario {

// Where a ScenarioError is, and what it says there. what() is the two joined:
//   at a value:   "file: /pointer: message"  (pointer "" is the root and prints as "/")
//   in the text:  "file:line:column: message" (a syntax error, before any value exists)
//   in the file:  "file: message"             (the file cannot be read)
// An empty file name (a document parsed from a string) drops "file: " or "file:" from the front.
// Copies share one immutable record, so copying the exception cannot throw.
class ScenarioError : public sim::InputError {
 public:
  // An error at the value `json_pointer` points to, escaped per RFC 6901 ("~0", "~1").
  ScenarioError(std::string file, std::string json_pointer, std::string message);

  // An error in the text of `file` at a 1-based line and column (columns count bytes).
  static ScenarioError in_text(std::string file,
                               std::size_t line,
                               std::size_t column,
                               std::string message);

  // An error with the file as a whole, such as one that cannot be read.
  static ScenarioError in_file(std::string file, std::string message);

  const std::string& file() const { return where_->file; }

  // The pointer of the value at fault: "" is the document root, and is also what errors not at a
  // value (in_text, in_file) hold; at_value() tells the two apart.
  const std::string& json_pointer() const { return where_->json_pointer; }

  bool at_value() const { return where_->kind == Kind::kValue; }

  // 1-based position of an in_text error; 0 for the others.
  std::size_t line() const { return where_->line; }

  std::size_t column() const { return where_->column; }

  // The message without its location: "expected an integer >= 1, got -2".
  const std::string& message() const { return where_->message; }

 private:
  enum class Kind { kValue, kText, kFile };

  struct Where {
    Kind kind = Kind::kValue;
    std::string file;
    std::string json_pointer;
    std::size_t line = 0;
    std::size_t column = 0;
    std::string message;
  };

  explicit ScenarioError(std::shared_ptr<const Where> where);

  // what(): the location, then the message.
  static std::string text_of(const Where& where);

  std::shared_ptr<const Where> where_;
};

}  // namespace railsim::models::scenario
