// File: models/scenario/json_reader.cpp
// JsonDocument and JsonValue over nlohmann::ordered_json (ordered, so that "the first unknown key"
// is the first in the text). nlohmann's exceptions end here, rethrown as ScenarioErrors; a parse
// callback tracks the pointer of the value being read, to name a key given twice.
#include "models/scenario/json_reader.hpp"

#include "models/scenario/message_text.hpp"
#include "models/scenario/quantity.hpp"
#include "sim/assert.hpp"
#include "sim/input_error.hpp"
#include "sim/input_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace railsim::models::scenario {
namespace {

using Json = nlohmann::ordered_json;

// A key as a JSON pointer token (RFC 6901): "~" becomes "~0", then "/" becomes "~1".
std::string pointer_token(std::string_view key) {
  std::string token;
  token.reserve(key.size());
  for (const char c : key) {
    if (c == '~') {
      token += "~0";
    } else if (c == '/') {
      token += "~1";
    } else {
      token.push_back(c);
    }
  }
  return token;
}

// What a value is, for "got ...": `a string ("16")`, "an integer (3)", "true", "an array".
std::string describe(const Json& node) {
  switch (node.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return node.get<bool>() ? "true" : "false";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer (" + node.dump() + ")";
    case Json::value_t::number_float:
      return "a number (" + node.dump() + ")";
    case Json::value_t::string:
      return "a string (" + quote(node.get_ref<const std::string&>()) + ")";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::binary:
    case Json::value_t::discarded:
      break;
  }
  RAILSIM_UNREACHABLE("a parsed document holds only JSON types");
}

// "an integer", "an integer >= 1", "a number <= 0.5", "an integer from 1 to 8".
template <class T>
std::string range_text(std::string_view noun, T min, T max, T lowest, T highest) {
  if (min == lowest && max == highest) {
    return std::string(noun);
  }
  if (max == highest) {
    return fmt::format("{} >= {}", noun, min);
  }
  if (min == lowest) {
    return fmt::format("{} <= {}", noun, max);
  }
  return fmt::format("{} from {} to {}", noun, min, max);
}

// A quantity parser's sim::InputError, rethrown at `value`'s pointer.
template <class Parse>
auto parse_at(const JsonValue& value, Parse parse) {
  try {
    return parse(value.as_string());
  } catch (const ScenarioError&) {
    throw;
  } catch (const sim::InputError& e) {
    throw value.error(e.what());
  }
}

// Follows the parse to know the pointer of the value being read; rejects a key that an object
// already holds (nlohmann would silently keep the later value) and an array or object nested
// deeper than kMaxJsonDepth, as soon as it opens.
class ParseCheck {
 public:
  explicit ParseCheck(const std::string& file) : file_(file) {}

  bool on_event(Json::parse_event_t event, const Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        if (frames_.size() == kMaxJsonDepth) {
          throw ScenarioError(
              file_, pointer_of_open(),
              fmt::format("nested deeper than {} arrays and objects", kMaxJsonDepth));
        }
        frames_.emplace_back().is_array = event == Json::parse_event_t::array_start;
        break;
      case Json::parse_event_t::key:
        add_key(parsed.get_ref<const std::string&>());
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        frames_.pop_back();
        next_element();
        break;
      case Json::parse_event_t::value:
        next_element();
        break;
    }
    return true;
  }

 private:
  // An open object or array, and which of its members is being read.
  struct Frame {
    bool is_array = false;
    std::size_t index = 0;       // arrays: of the element being read
    std::string key;             // objects: of the member being read
    std::set<std::string> keys;  // objects: those seen so far
  };

  void next_element() {
    if (!frames_.empty() && frames_.back().is_array) {
      ++frames_.back().index;
    }
  }

  // The pointer of the value being read inside the innermost open array or object, given the
  // first `frames` of them.
  std::string pointer_within(std::size_t frames) const {
    std::string pointer;
    for (std::size_t i = 0; i < frames; ++i) {
      const Frame& outer = frames_[i];
      // Appended piece by piece: `"/" + std::string` trips g++ 12's -Wrestrict (bug 105651).
      pointer += '/';
      pointer += outer.is_array ? std::to_string(outer.index) : pointer_token(outer.key);
    }
    return pointer;
  }

  // The pointer of the array or object opening now: the value being read in the innermost one.
  std::string pointer_of_open() const { return pointer_within(frames_.size()); }

  void add_key(const std::string& key) {
    Frame& object = frames_.back();
    if (!object.keys.insert(key).second) {
      std::string pointer = pointer_within(frames_.size() - 1);
      pointer += '/';
      pointer += pointer_token(key);
      throw ScenarioError(file_, pointer, "duplicate key " + quote(key));
    }
    object.key = key;
  }

  const std::string& file_;
  std::vector<Frame> frames_;
};

// 1-based line and column of the byte nlohmann stopped at. Its `byte` counts the characters read,
// the offending one included, and is one past the end when the text ended too early.
std::pair<std::size_t, std::size_t> text_position(std::string_view text, std::size_t byte) {
  const std::size_t at = std::min(byte == 0 ? 0 : byte - 1, text.size());
  const std::string_view before = text.substr(0, at);
  const auto line = static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
  const std::size_t newline = before.rfind('\n');
  const std::size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
  return {line, at - line_start + 1};
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 2: " head, which a ScenarioError says in its own way.
std::string without_exception_head(std::string_view what) {
  if (const std::size_t bracket = what.find("] "); bracket != std::string_view::npos) {
    what.remove_prefix(bracket + 2);
  }
  if (what.starts_with("parse error")) {
    if (const std::size_t colon = what.find(": "); colon != std::string_view::npos) {
      what.remove_prefix(colon + 2);
    }
  }
  return std::string(what);
}

std::string read_file(const std::string& path) {
  std::string problem;
  std::string text = sim::read_input_file(path, problem);
  if (!problem.empty()) {
    throw ScenarioError::in_file(path, "cannot read: " + problem);
  }
  return text;
}

}  // namespace

// nlohmann's ~basic_json may allocate as it takes nested values apart; tidy sees that throw from
// a noexcept destructor. Memory running out there ends the process, as it would anywhere else.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct JsonDocument::State {
  std::string file;
  Json json;
};

JsonDocument::JsonDocument(std::unique_ptr<State> state) : state_(std::move(state)) {}

JsonDocument::JsonDocument(JsonDocument&&) noexcept = default;

JsonDocument& JsonDocument::operator=(JsonDocument&&) noexcept = default;

JsonDocument::~JsonDocument() = default;

JsonValue JsonDocument::root() const {
  RAILSIM_ASSERT(state_ != nullptr, "root() of a moved-from JsonDocument");
  return JsonValue(state_->json, state_->file, "");
}

const std::string& JsonDocument::file() const {
  RAILSIM_ASSERT(state_ != nullptr, "file() of a moved-from JsonDocument");
  return state_->file;
}

JsonDocument parse_json(std::string_view text, std::string file) {
  auto state = std::make_unique<JsonDocument::State>();
  state->file = std::move(file);
  ParseCheck check(state->file);
  const Json::parser_callback_t callback = [&check](int /*depth*/, Json::parse_event_t event,
                                                    Json& parsed) {
    return check.on_event(event, parsed);
  };
  try {
    state->json = Json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/true,
                              /*ignore_comments=*/false);
  } catch (const Json::parse_error& e) {
    const auto [line, column] = text_position(text, e.byte);
    // A log or a matrix given where a JSON file belongs fails on its first character; say so
    // rather than quote the parser ("syntax error ... last read: '#'").
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && text[first] != '{' && text[first] != '[' &&
        e.byte <= first + 1) {
      throw ScenarioError::in_text(
          state->file, line, column,
          "not JSON (a JSON file starts with '{'): if this is a tool's output, `railsim parse` "
          "reads it");
    }
    throw ScenarioError::in_text(state->file, line, column, without_exception_head(e.what()));
  } catch (const Json::exception& e) {
    // A number too large for a double ("1e400") is the one other way parsing fails.
    throw ScenarioError::in_file(state->file, without_exception_head(e.what()));
  }
  return JsonDocument(std::move(state));
}

JsonDocument load_json_file(const std::string& path) { return parse_json(read_file(path), path); }

JsonValue::JsonValue(const Json& node, const std::string& file, std::string pointer)
    : node_(&node), file_(&file), pointer_(std::move(pointer)) {}

ScenarioError JsonValue::error(std::string message) const {
  return ScenarioError(*file_, pointer_, std::move(message));
}

bool JsonValue::is_null() const { return node_->is_null(); }

bool JsonValue::is_bool() const { return node_->is_boolean(); }

bool JsonValue::is_integer() const { return node_->is_number_integer(); }

bool JsonValue::is_number() const { return node_->is_number(); }

bool JsonValue::is_string() const { return node_->is_string(); }

bool JsonValue::is_array() const { return node_->is_array(); }

bool JsonValue::is_object() const { return node_->is_object(); }

void JsonValue::require(bool has_type, std::string_view expected) const {
  if (!has_type) {
    reject(expected);
  }
}

void JsonValue::reject(std::string_view expected) const {
  throw error(fmt::format("expected {}, got {}", expected, describe(*node_)));
}

JsonValue JsonValue::child(const Json& node, std::string_view key) const {
  return JsonValue(node, *file_, pointer_ + "/" + pointer_token(key));
}

std::optional<JsonValue> JsonValue::find(std::string_view key) const {
  require(is_object(), "an object");
  const auto member = node_->find(key);
  if (member == node_->end()) {
    return std::nullopt;
  }
  return child(*member, key);
}

JsonValue JsonValue::at(std::string_view key) const {
  std::optional<JsonValue> member = find(key);
  if (!member) {
    throw error("missing key " + quote(key));
  }
  return *std::move(member);
}

bool JsonValue::contains(std::string_view key) const { return find(key).has_value(); }

std::vector<std::pair<std::string, JsonValue>> JsonValue::members() const {
  require(is_object(), "an object");
  std::vector<std::pair<std::string, JsonValue>> out;
  out.reserve(node_->size());
  for (const auto& member : node_->items()) {
    out.emplace_back(member.key(), child(member.value(), member.key()));
  }
  return out;
}

void JsonValue::expect_keys(std::initializer_list<std::string_view> allowed) const {
  require(is_object(), "an object");
  const std::vector<std::string_view> names(allowed);
  for (const auto& member : node_->items()) {
    const std::string& key = member.key();
    if (std::find(names.begin(), names.end(), key) != names.end()) {
      continue;
    }
    std::string message = "unknown key " + quote(key) + did_you_mean_quoted(key, names);
    message += names.empty() ? "; expected no keys" : "; expected one of " + quoted_list(names);
    throw child(member.value(), key).error(std::move(message));
  }
}

JsonValue JsonValue::at(std::size_t index) const {
  require(is_array(), "an array");
  if (index >= node_->size()) {
    throw error(fmt::format("no element {} in an array of {}", index, node_->size()));
  }
  return JsonValue((*node_)[index], *file_, pointer_ + "/" + std::to_string(index));
}

std::vector<JsonValue> JsonValue::elements() const {
  require(is_array(), "an array");
  std::vector<JsonValue> out;
  out.reserve(node_->size());
  for (std::size_t i = 0; i < node_->size(); ++i) {
    out.push_back(JsonValue((*node_)[i], *file_, pointer_ + "/" + std::to_string(i)));
  }
  return out;
}

std::size_t JsonValue::size() const {
  require(is_array() || is_object(), "an array or an object");
  return node_->size();
}

std::string JsonValue::as_string() const {
  require(is_string(), "a string");
  return node_->get<std::string>();
}

bool JsonValue::as_bool() const {
  require(is_bool(), "true or false");
  return node_->get<bool>();
}

std::int64_t JsonValue::as_integer(std::int64_t min, std::int64_t max) const {
  const std::string expected =
      range_text("an integer", min, max, std::numeric_limits<std::int64_t>::min(),
                 std::numeric_limits<std::int64_t>::max());
  require(is_integer(), expected);
  const auto out_of_range = [&] {
    return error(fmt::format("expected {}, got {}", expected, node_->dump()));
  };
  if (node_->is_number_unsigned()) {
    const auto value = node_->get<std::uint64_t>();
    if (max < 0 || value > static_cast<std::uint64_t>(max)) {
      throw out_of_range();
    }
  }
  const auto value = node_->get<std::int64_t>();
  if (value < min || value > max) {
    throw out_of_range();
  }
  return value;
}

double JsonValue::as_number(double min, double max) const {
  const std::string expected =
      range_text("a number", min, max, -std::numeric_limits<double>::infinity(),
                 std::numeric_limits<double>::infinity());
  require(is_number(), expected);
  const auto value = node_->get<double>();
  if (value < min || value > max) {
    throw error(fmt::format("expected {}, got {}", expected, node_->dump()));
  }
  return value;
}

sim::Bandwidth JsonValue::as_bandwidth() const {
  require(is_string(), kBandwidthExpected);
  return parse_at(*this, [](const std::string& text) { return parse_bandwidth(text); });
}

sim::Duration JsonValue::as_duration() const {
  require(is_string(), kDurationExpected);
  return parse_at(*this, [](const std::string& text) { return parse_duration(text); });
}

sim::Bytes JsonValue::as_size() const {
  if (is_integer()) {
    if (node_->is_number_unsigned() &&
        node_->get<std::uint64_t>() <=
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return sim::bytes(node_->get<std::int64_t>());
    }
    throw error(fmt::format("expected {}, got {}", kSizeExpected, node_->dump()));
  }
  require(is_string(), kSizeExpected);
  return parse_at(*this, [](const std::string& text) { return parse_size(text); });
}

double JsonValue::as_ratio() const {
  if (is_number()) {
    const auto ratio = node_->get<double>();
    if (ratio < 0.0) {
      throw error(fmt::format("expected {}, got {}", kRatioExpected, node_->dump()));
    }
    return ratio;
  }
  require(is_string(), kRatioExpected);
  return parse_at(*this, [](const std::string& text) { return parse_ratio(text); });
}

std::string JsonValue::as_choice(std::initializer_list<std::string_view> choices) const {
  const std::vector<std::string_view> names(choices);
  return std::string(names[choice_index(names)]);
}

std::size_t JsonValue::choice_index(const std::vector<std::string_view>& names) const {
  const std::string expected = "one of " + quoted_list(names);
  require(is_string(), expected);
  const std::string& text = node_->get_ref<const std::string&>();
  const auto match = std::find(names.begin(), names.end(), text);
  if (match != names.end()) {
    return static_cast<std::size_t>(match - names.begin());
  }
  throw error(fmt::format("expected {}, got {}{}", expected, quote(text),
                          did_you_mean_quoted(text, names)));
}

}  // namespace railsim::models::scenario
