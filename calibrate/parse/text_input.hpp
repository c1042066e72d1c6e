// File: calibrate/parse/text_input.hpp
// TextInput: a tool's output as numbered lines, and the one way the parsers report bad input:
// ParseError, a sim::InputError whose message reads "FILE:LINE: what was expected, what was
// found", so `railsim parse` points at the line to look at.
#pragma once

#include "sim/input_error.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railsim::calibrate::parse {

class ParseError : public sim::InputError {
 public:
  ParseError(const std::string& file, int line, const std::string& what);

  const std::string& file() const { return file_; }

  // 1-based; 0 when the error concerns the whole file (an empty one, say).
  int line() const { return line_; }

 private:
  std::string file_;
  int line_;
};

// "FILE:LINE", the place a check's evidence or a parse error points at.
std::string place(const std::string& file, int line);

class TextInput {
 public:
  // `name` is what errors call the file (its path). Lines split at '\n'; a '\r' before it (a
  // log saved on Windows) is dropped. Other bytes, binary ones included, stay in the text and
  // fail whatever field holds them, except that each byte that is not UTF-8 (a host name saved
  // in Latin-1) reads as U+FFFD in line(), so that no text a parser keeps can stop its JSON
  // from being written; non_utf8_lines() says where.
  TextInput(std::string name, std::string_view text);

  // Reads the whole file; a file that cannot be read is a ParseError at line 0.
  static TextInput from_file(const std::string& path);

  const std::string& name() const { return name_; }

  // The whole text as read (for a content hash).
  const std::string& text() const { return text_; }

  int line_count() const { return static_cast<int>(lines_.size()); }

  // The text of line `number` (1-based, 1 <= number <= line_count()), without its newline.
  std::string_view line(int number) const;

  // The lines, in order, in which line() shows bytes that are not UTF-8 as U+FFFD.
  const std::vector<int>& non_utf8_lines() const { return non_utf8_lines_; }

  // True when every line is empty or white space.
  bool blank() const;

  [[noreturn]] void fail(int line, const std::string& what) const;

 private:
  // Splits `text` into lines_.
  void split(std::string_view text);

  std::string name_;
  std::string text_;
  // text_ with bytes that are not UTF-8 replaced; empty when text_ is UTF-8 throughout.
  std::string shown_;
  // (offset, length) into shown_ (or text_, when it is empty) rather than views, so that moving
  // a TextInput keeps them valid.
  std::vector<std::pair<std::size_t, std::size_t>> lines_;
  std::vector<int> non_utf8_lines_;
};

// "FILE:LINE: bytes that are not UTF-8 read as U+FFFD", for each of the first few such lines,
// then how many more: the warnings a command prints for an input it could read.
std::vector<std::string> non_utf8_warnings(const TextInput& input);

}  // namespace railsim::calibrate::parse
