// File: models/scenario/json_reader.hpp
// A typed view of a parsed JSON document that knows where each value sits: every getter that
// rejects a value throws a ScenarioError naming the file and the value's JSON pointer, so the
// scenario parser never assembles a location by hand. nlohmann_json stays behind this interface
// (only its forward declarations are seen here).
#pragma once

#include "models/scenario/scenario_error.hpp"
#include "sim/bandwidth.hpp"
#include "sim/bytes.hpp"
#include "sim/time.hpp"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railsim::models::scenario {

class JsonValue;

// A parsed document. It owns the values JsonValues look at, so it must outlive them; moving it
// keeps them valid. Object members keep the order of the text, and a key given twice in one
// object is an error (JSON would silently keep the last).
class JsonDocument {
 public:
  JsonDocument(JsonDocument&&) noexcept;
  JsonDocument& operator=(JsonDocument&&) noexcept;
  JsonDocument(const JsonDocument&) = delete;
  JsonDocument& operator=(const JsonDocument&) = delete;
  ~JsonDocument();

  JsonValue root() const;

  const std::string& file() const;

 private:
  struct State;

  explicit JsonDocument(std::unique_ptr<State> state);

  friend JsonDocument parse_json(std::string_view text, std::string file);

  std::unique_ptr<State> state_;
};

// The deepest nesting of arrays and objects a document may have: the root is depth 1, so
// {"system": {"faults": [{...}]}} is 4, and railsim's own files stay under 10. The ceiling keeps
// every recursive walk of a document (nlohmann's dump and comparison, the sweep's merge) far
// from the stack's end, and a 300,000-deep array is refused at its 101st "[" rather than
// crashing the program that reads it.
inline constexpr std::size_t kMaxJsonDepth = 100;

// Reads and parses the file at `path`, which then names it in messages. Throws ScenarioError if
// it cannot be read ("x.json: cannot read: No such file or directory"), is not JSON
// ("x.json:3:17: syntax error while parsing object key - ..."; lines and columns are 1-based,
// columns count bytes) or nests deeper than kMaxJsonDepth ("x.json: /a/0/0/...: nested deeper
// than 100 arrays and objects").
JsonDocument load_json_file(const std::string& path);

// Parses `text`; `file` names it in messages and may be empty.
JsonDocument parse_json(std::string_view text, std::string file = {});

// One named option of JsonValue::as_enum.
template <class T>
struct Choice {
  std::string_view name;
  T value;
};

// A value in a JsonDocument with its JSON pointer (RFC 6901: "/nodes/2/name", with "~" and "/"
// in keys written "~0" and "~1"). Cheap to copy; valid while its document lives. Every error it
// throws is a ScenarioError at its own pointer (or, for an unknown key, at that key's pointer).
class JsonValue {
 public:
  const std::string& json_pointer() const { return pointer_; }

  const std::string& file() const { return *file_; }

  // An error at this value, for checks only the caller can make:
  //   throw value.error("expected at least as many spines as leaves");
  ScenarioError error(std::string message) const;

  bool is_null() const;
  bool is_bool() const;
  bool is_integer() const;  // a JSON number written without fraction or exponent
  bool is_number() const;   // any JSON number
  bool is_string() const;
  bool is_array() const;
  bool is_object() const;

  // Objects. Each requires one ("/fabric: expected an object, got an array").
  JsonValue at(std::string_view key) const;  // `/fabric: missing key "spine"` if absent
  std::optional<JsonValue> find(std::string_view key) const;
  bool contains(std::string_view key) const;
  std::vector<std::pair<std::string, JsonValue>> members() const;  // in the order of the text

  // Rejects the first key, in the order of the text, that is not in `allowed`:
  //   /fabric/spnie: unknown key "spnie" (did you mean "spine"?); expected one of "leaf", "spine"
  void expect_keys(std::initializer_list<std::string_view> allowed) const;

  // Arrays. Each requires one.
  JsonValue at(std::size_t index) const;
  std::vector<JsonValue> elements() const;

  // Elements of an array or members of an object.
  std::size_t size() const;

  // Scalars. A value of the wrong type reads `/nodes: expected an integer, got a string ("16")`.
  std::string as_string() const;
  bool as_bool() const;

  // A JSON integer (2.5, 2.0 and "2" are rejected) within [min, max]; a range error reads
  // "expected an integer >= 1, got -2", "... <= 8, got 9" or "... from 1 to 8, got 9".
  std::int64_t as_integer(std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                          std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;

  // Any JSON number within [min, max].
  double as_number(double min = -std::numeric_limits<double>::infinity(),
                   double max = std::numeric_limits<double>::infinity()) const;

  // Quantity strings, read by the parsers of quantity.hpp ("400Gbps", "1.5us"). A size may also
  // be a non-negative JSON integer, in bytes; a ratio, a non-negative JSON number ("2:1" or 2).
  sim::Bandwidth as_bandwidth() const;
  sim::Duration as_duration() const;
  sim::Bytes as_size() const;
  double as_ratio() const;

  // One of a fixed set of strings:
  //   expected one of "aligned", "misaligned", "explicit", got "alinged" (did you mean "aligned"?)
  std::string as_choice(std::initializer_list<std::string_view> choices) const;

  // The same, mapped to a value:
  //   value.as_enum<RailMode>({{"aligned", RailMode::kAligned}, {"misaligned", ...}})
  template <class T>
  T as_enum(std::initializer_list<Choice<T>> choices) const {
    std::vector<std::string_view> names;
    names.reserve(choices.size());
    for (const Choice<T>& choice : choices) {
      names.push_back(choice.name);
    }
    return (choices.begin() + choice_index(names))->value;
  }

 private:
  friend class JsonDocument;

  JsonValue(const nlohmann::ordered_json& node, const std::string& file, std::string pointer);

  // Errors unless this value has the type `expected` names ("an object", "a string").
  void require(bool has_type, std::string_view expected) const;

  // "expected <expected>, got <what this value is>".
  [[noreturn]] void reject(std::string_view expected) const;

  JsonValue child(const nlohmann::ordered_json& node, std::string_view key) const;

  std::size_t choice_index(const std::vector<std::string_view>& names) const;

  const nlohmann::ordered_json* node_;
  const std::string* file_;
  std::string pointer_;
};

}  // namespace railsim::models::scenario
