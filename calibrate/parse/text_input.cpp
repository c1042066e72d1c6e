// File: calibrate/parse/text_input.cpp
#include "calibrate/parse/text_input.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <utility>

namespace railsim::calibrate::parse {
namespace {

std::string located(const std::string& file, int line, const std::string& what) {
  return line > 0 ? fmt::format("{}: {}", place(file, line), what)
                  : fmt::format("{}: {}", file, what);
}

}  // namespace

std::string place(const std::string& file, int line) { return fmt::format("{}:{}", file, line); }

ParseError::ParseError(const std::string& file, int line, const std::string& what)
    : sim::InputError(located(file, line, what)), file_(file), line_(line) {}

TextInput::TextInput(std::string name, std::string_view text)
    : name_(std::move(name)), text_(text) {
  const std::string_view all(text_);
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find('\n', start);
    if (end == std::string_view::npos) {
      end = all.size();
    }
    std::string_view line = all.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    lines_.emplace_back(start, line.size());
    start = end + 1;
  }
}

TextInput TextInput::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ParseError(path, 0, "cannot open the file");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return TextInput(path, text.str());
}

std::string_view TextInput::line(int number) const {
  const auto [offset, length] = lines_.at(static_cast<std::size_t>(number - 1));
  return std::string_view(text_).substr(offset, length);
}

bool TextInput::blank() const {
  return text_.find_first_not_of(" \t\r\n\v\f") == std::string::npos;
}

void TextInput::fail(int line, const std::string& what) const {
  throw ParseError(name_, line, what);
}

}  // namespace railsim::calibrate::parse
