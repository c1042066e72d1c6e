// File: models/scenario/message_text.cpp
// Quoting and suggestions for scenario error messages. The suggestion itself comes from
// models::did_you_mean, so presets and scenario keys agree on what counts as a likely typo.
#include "models/scenario/message_text.hpp"

#include "models/did_you_mean.hpp"

#include <fmt/format.h>

namespace railsim::models::scenario {

std::string quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('"');
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
      continue;
    }
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20) {
      out += fmt::format("\\u{:04x}", byte);
      continue;
    }
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string quoted_list(const std::vector<std::string_view>& choices) {
  std::string out;
  for (const std::string_view choice : choices) {
    if (!out.empty()) {
      out += ", ";
    }
    out += quote(choice);
  }
  return out;
}

std::string did_you_mean_quoted(std::string_view word,
                                const std::vector<std::string_view>& candidates) {
  const std::optional<std::string> match = closest_match(word, candidates);
  if (!match) {
    return {};
  }
  return " (did you mean " + quote(*match) + "?)";
}

}  // namespace railsim::models::scenario
