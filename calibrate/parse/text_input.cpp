// File: calibrate/parse/text_input.cpp
#include "calibrate/parse/text_input.hpp"

#include "sim/input_file.hpp"
#include "sim/utf8.hpp"

#include <fmt/format.h>

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
  split(text_);
  if (sim::is_utf8(text_)) {
    return;
  }
  // Lines never split a character ('\n' is never part of a multi-byte one), so each line is
  // replaced on its own and the line numbers stay those of the file.
  for (int number = 1; number <= line_count(); ++number) {
    const auto [offset, length] = lines_[static_cast<std::size_t>(number - 1)];
    const std::string_view raw = std::string_view(text_).substr(offset, length);
    const std::size_t end = offset + length;
    const std::size_t next =
        number < line_count() ? lines_[static_cast<std::size_t>(number)].first : text_.size();
    if (!sim::is_utf8(raw)) {
      non_utf8_lines_.push_back(number);
      shown_ += sim::replace_non_utf8(raw);
    } else {
      shown_ += raw;
    }
    shown_ += std::string_view(text_).substr(end, next - end);  // the "\r\n" or "\n"
  }
  lines_.clear();
  split(shown_);
}

void TextInput::split(std::string_view all) {
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
  std::string problem;
  std::string text = sim::read_input_file(path, problem);
  if (!problem.empty()) {
    throw ParseError(path, 0, "cannot read the file: " + problem);
  }
  return TextInput(path, text);
}

std::string_view TextInput::line(int number) const {
  const auto [offset, length] = lines_.at(static_cast<std::size_t>(number - 1));
  return std::string_view(shown_.empty() ? text_ : shown_).substr(offset, length);
}

std::vector<std::string> non_utf8_warnings(const TextInput& input) {
  constexpr std::size_t kNamed = 5;
  const std::vector<int>& lines = input.non_utf8_lines();
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lines.size() && i < kNamed; ++i) {
    out.push_back(
        fmt::format("{}: bytes that are not UTF-8 read as U+FFFD", place(input.name(), lines[i])));
  }
  if (lines.size() > kNamed) {
    out.push_back(fmt::format("{}: and {} more lines with bytes that are not UTF-8", input.name(),
                              lines.size() - kNamed));
  }
  return out;
}

bool TextInput::blank() const {
  return text_.find_first_not_of(" \t\r\n\v\f") == std::string::npos;
}

void TextInput::fail(int line, const std::string& what) const {
  throw ParseError(name_, line, what);
}

}  // namespace railsim::calibrate::parse
