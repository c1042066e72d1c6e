// File: sim/utf8.hpp
// Well-formed UTF-8 (Unicode 15, table 3-7), for text read from outside (tool logs, file names)
// that must reach JSON or HTML: nlohmann_json refuses to write a string that is not UTF-8, and a
// browser shows one as mojibake. Bytes that are not part of a well-formed sequence are replaced,
// each by U+FFFD, the replacement character.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace railsim::sim {

// The length (1 to 4) of the well-formed sequence `text` starts with; 0 when its first byte
// starts none (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, or a
// sequence cut short) or `text` is empty.
std::size_t utf8_sequence_length(std::string_view text);

bool is_utf8(std::string_view text);

// `text` with each byte outside a well-formed sequence replaced by U+FFFD ("\xEF\xBF\xBD").
std::string replace_non_utf8(std::string_view text);

inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

}  // namespace railsim::sim
