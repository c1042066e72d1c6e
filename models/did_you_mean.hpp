// File: models/did_you_mean.hpp
// Suggestions for misspelt names (presets, scenario keys): the closest candidate by edit
// distance, when it is close enough to be a likely typo.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railsim::models {

// " (did you mean 'dgx-h100'?)" for the closest candidate within a third of the word's length
// (at least 2 edits), else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace railsim::models
