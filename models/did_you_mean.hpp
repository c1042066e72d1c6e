// File: models/did_you_mean.hpp
// Suggestions for misspelt names (presets, scenario keys): the closest candidate by edit
// distance, when it is close enough to be a likely typo.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::models {

// The candidate closest to `word` by edit distance, if it lies within a third of the word's
// length (at least 2 edits); the first of equals.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string_view>& candidates);

// " (did you mean 'dgx-h100'?)" for closest_match(), else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace railsim::models
