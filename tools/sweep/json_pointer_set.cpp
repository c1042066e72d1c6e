// File: tools/sweep/json_pointer_set.cpp
// The walk to a pointer's parent, with a message for each way it can fail.
#include "tools/sweep/json_pointer_set.hpp"

#include "models/did_you_mean.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <optional>
#include <string_view>

namespace railsim::tools::sweep {
namespace {

using Json = nlohmann::ordered_json;

// RFC 6901 escaping, for the pointers quoted in messages.
std::string escape(const std::string& token) {
  std::string out;
  out.reserve(token.size());
  for (const char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string prefix_of(const std::vector<std::string>& tokens, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    out += '/';  // appended apart: g++ 12 -O3 misreads "/" + escape(...) (-Wrestrict)
    out += escape(tokens[i]);
  }
  return out.empty() ? "the document root" : out;
}

// An array index as RFC 6901 writes it: digits, no leading zero.
std::optional<std::size_t> index_of(const std::string& token) {
  if (token.empty() || token.size() > 9 || (token.size() > 1 && token[0] == '0')) {
    return std::nullopt;
  }
  std::size_t index = 0;
  for (const char c : token) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    index = index * 10 + static_cast<std::size_t>(c - '0');
  }
  return index;
}

// Quoted as JsonValue quotes keys in its own "did you mean" hints. Keys of one or two letters
// are too short for a guess to mean anything.
std::string missing_key(const Json& object, const std::string& key, const std::string& where) {
  std::vector<std::string> keys;
  keys.reserve(object.size());
  for (const auto& item : object.items()) {
    keys.push_back(item.key());
  }
  const std::vector<std::string_view> candidates(keys.begin(), keys.end());
  const std::optional<std::string> match =
      key.size() < 3 ? std::nullopt : models::closest_match(key, candidates);
  return fmt::format("no \"{}\" in {}{}", key, where,
                     match ? fmt::format(" (did you mean \"{}\"?)", *match) : "");
}

// The element `token` names in the container `node` (at `where`); nullptr and a reason when
// there is none.
const Json* step(const Json& node,
                 const std::string& token,
                 const std::string& where,
                 std::string& problem) {
  if (node.is_object()) {
    const auto it = node.find(token);
    if (it == node.end()) {
      problem = missing_key(node, token, where);
      return nullptr;
    }
    return &*it;
  }
  if (node.is_array()) {
    const std::optional<std::size_t> index = index_of(token);
    if (!index) {
      problem = fmt::format("{} is an array: expected an element index, got \"{}\"", where, token);
      return nullptr;
    }
    if (*index >= node.size()) {
      problem = fmt::format("no element {} in {} (it has {})", *index, where, node.size());
      return nullptr;
    }
    return &node[*index];
  }
  problem = fmt::format("{} is a {}, not an object or an array", where, node.type_name());
  return nullptr;
}

// The container the last token is set in, or nullptr and the reason.
const Json* parent_of(const Json& document,
                      const std::vector<std::string>& tokens,
                      std::string& problem) {
  const Json* node = &document;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    node = step(*node, tokens[i], prefix_of(tokens, i), problem);
    if (node == nullptr) {
      return nullptr;
    }
  }
  const std::string where = prefix_of(tokens, tokens.size() - 1);
  const std::string& last = tokens.back();
  if (node->is_object()) {
    return node;
  }
  if (node->is_array()) {
    if (last == "-") {
      problem = fmt::format("{} is an array: a sweep replaces elements, it does not append", where);
      return nullptr;
    }
    return step(*node, last, where, problem) == nullptr ? nullptr : node;
  }
  problem = fmt::format("{} is a {}, not an object or an array", where, node->type_name());
  return nullptr;
}

}  // namespace

std::vector<std::string> pointer_tokens(const std::string& pointer, std::string& problem) {
  if (pointer.empty()) {
    problem = "expected a JSON pointer below the root, such as \"/system/nodes\", got \"\"";
    return {};
  }
  if (pointer[0] != '/') {
    problem = fmt::format("expected a JSON pointer starting with \"/\", got \"{}\"", pointer);
    return {};
  }
  std::vector<std::string> tokens(1);
  for (std::size_t i = 1; i < pointer.size(); ++i) {
    const char c = pointer[i];
    if (c == '/') {
      tokens.emplace_back();
    } else if (c != '~') {
      tokens.back() += c;
    } else if (i + 1 < pointer.size() && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
      tokens.back() += pointer[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      problem = fmt::format(R"("{}": "~" must be followed by 0 or 1 (RFC 6901))", pointer);
      return {};
    }
  }
  return tokens;
}

std::string set_problem(const Json& document, const std::string& pointer) {
  std::string problem;
  const std::vector<std::string> tokens = pointer_tokens(pointer, problem);
  if (!problem.empty()) {
    return problem;
  }
  parent_of(document, tokens, problem);
  return problem;
}

std::string set_at_pointer(Json& document, const std::string& pointer, Json value) {
  std::string problem;
  const std::vector<std::string> tokens = pointer_tokens(pointer, problem);
  if (!problem.empty()) {
    return problem;
  }
  const Json* parent = parent_of(document, tokens, problem);
  if (parent == nullptr) {
    return problem;
  }
  // parent_of only reads; the node it found is part of the mutable `document`.
  Json& target = const_cast<Json&>(*parent);  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  if (target.is_object()) {
    target[tokens.back()] = std::move(value);
  } else {
    target[*index_of(tokens.back())] = std::move(value);
  }
  return {};
}

}  // namespace railsim::tools::sweep
