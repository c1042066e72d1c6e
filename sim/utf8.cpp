// File: sim/utf8.cpp
#include "sim/utf8.hpp"

namespace railsim::sim {
namespace {

bool in(unsigned char byte, unsigned char low, unsigned char high) {
  return byte >= low && byte <= high;
}

}  // namespace

std::size_t utf8_sequence_length(std::string_view text) {
  if (text.empty()) {
    return 0;
  }
  const auto byte = [&text](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char first = byte(0);
  if (first < 0x80) {
    return 1;
  }
  // Table 3-7: the range of the second byte depends on the first; later ones are 80..BF.
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (in(first, 0xC2, 0xDF)) {
    length = 2;
  } else if (in(first, 0xE0, 0xEF)) {
    length = 3;
    low = first == 0xE0 ? 0xA0 : 0x80;   // no overlong forms
    high = first == 0xED ? 0x9F : 0xBF;  // no surrogates
  } else if (in(first, 0xF0, 0xF4)) {
    length = 4;
    low = first == 0xF0 ? 0x90 : 0x80;   // no overlong forms
    high = first == 0xF4 ? 0x8F : 0xBF;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (text.size() < length || !in(byte(1), low, high)) {
    return 0;
  }
  for (std::size_t i = 2; i < length; ++i) {
    if (!in(byte(i), 0x80, 0xBF)) {
      return 0;
    }
  }
  return length;
}

bool is_utf8(std::string_view text) {
  while (!text.empty()) {
    const std::size_t length = utf8_sequence_length(text);
    if (length == 0) {
      return false;
    }
    text.remove_prefix(length);
  }
  return true;
}

std::string replace_non_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const std::size_t length = utf8_sequence_length(text);
    if (length == 0) {
      out += kReplacementCharacter;
      text.remove_prefix(1);
      continue;
    }
    out += text.substr(0, length);
    text.remove_prefix(length);
  }
  return out;
}

}  // namespace railsim::sim
