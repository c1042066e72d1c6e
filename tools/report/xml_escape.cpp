// File: tools/report/xml_escape.cpp
#include "tools/report/xml_escape.hpp"

#include "sim/utf8.hpp"

namespace railsim::tools::report {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  while (!text.empty()) {
    const std::size_t length = sim::utf8_sequence_length(text);
    if (length != 1) {
      // A multi-byte character is copied whole; a byte that is not UTF-8 is replaced.
      out += length == 0 ? sim::kReplacementCharacter : text.substr(0, length);
      text.remove_prefix(length == 0 ? 1 : length);
      continue;
    }
    const char c = text.front();
    text.remove_prefix(1);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += "\xEF\xBF\xBD";
          break;
        }
        out += c;
    }
  }
  return out;
}

}  // namespace railsim::tools::report
