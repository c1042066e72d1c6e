// File: tests/tools/report/svg_search.hpp
// Helpers for the report tests: counting substrings and reading numeric attributes out of the
// SVG text the charts return, so tests check what is drawn rather than how it is formatted.
#pragma once

#include <cstddef>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::tools::report::testing {

inline std::size_t count_of(std::string_view text, std::string_view needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

// Every element that starts with `opening` (such as `<circle class="marker"`): its text up to '>'.
inline std::vector<std::string> elements(const std::string& text, std::string_view opening) {
  std::vector<std::string> out;
  for (std::size_t at = text.find(opening); at != std::string::npos;
       at = text.find(opening, at + 1)) {
    out.push_back(text.substr(at, text.find('>', at) - at));
  }
  return out;
}

// The value of attribute `name` in an element's text, as a string ("" when absent).
inline std::string attribute(const std::string& element, const std::string& name) {
  const std::regex pattern(" " + name + "=\"([^\"]*)\"");
  std::smatch match;
  if (!std::regex_search(element, match, pattern)) {
    return {};
  }
  return match[1].str();
}

inline double number_attribute(const std::string& element, const std::string& name) {
  return std::stod(attribute(element, name));
}

}  // namespace railsim::tools::report::testing
