// File: models/scenario/message_text.hpp
// Small pieces of error-message text shared by the scenario readers: a value in double quotes,
// a list of quoted choices, and the closest of a set of names to a misspelt one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::models::scenario {

// `text` in double quotes, escaped as a JSON string would be ("\"", "\\", control characters as
// \u00XX), so that a message shows exactly what the input held: quote("400") is "\"400\"".
std::string quote(std::string_view text);

// "\"a\", \"b\", \"c\"": each choice quoted, in the order given.
std::string quoted_list(const std::vector<std::string_view>& choices);

// " (did you mean \"spine\"?)" for models::closest_match, else "".
std::string did_you_mean_quoted(std::string_view word,
                                const std::vector<std::string_view>& candidates);

}  // namespace railsim::models::scenario
