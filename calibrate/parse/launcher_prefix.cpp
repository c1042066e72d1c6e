// File: calibrate/parse/launcher_prefix.cpp
#include "calibrate/parse/launcher_prefix.hpp"

#include <cctype>
#include <string>

namespace railsim::calibrate::parse {
namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// The length of the digits at `at` (0 when there are none).
std::size_t digits_at(std::string_view text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size() && is_digit(text[end])) {
    ++end;
  }
  return end - at;
}

// "[1,0]<stdout>:" or "[1,0]<stderr>:"; the length, or 0.
std::size_t openmpi_tag(std::string_view line) {
  if (!line.starts_with('[')) {
    return 0;
  }
  std::size_t at = 1;
  const std::size_t job = digits_at(line, at);
  if (job == 0 || line.substr(at + job, 1) != ",") {
    return 0;
  }
  at += job + 1;
  const std::size_t rank = digits_at(line, at);
  at += rank;
  for (const std::string_view stream : {"]<stdout>:", "]<stderr>:"}) {
    if (rank > 0 && line.substr(at).starts_with(stream)) {
      return at + stream.size();
    }
  }
  return 0;
}

// Slurm's " 3: ": spaces, digits, ": "; the length, or 0.
std::size_t slurm_label(std::string_view line) {
  const std::size_t at = line.find_first_not_of(' ');
  if (at == std::string_view::npos) {
    return 0;
  }
  const std::size_t task = digits_at(line, at);
  return task > 0 && line.substr(at + task).starts_with(": ") ? at + task + 2 : 0;
}

// MPICH's "[0] "; the length, or 0.
std::size_t mpich_rank(std::string_view line) {
  if (!line.starts_with('[')) {
    return 0;
  }
  const std::size_t rank = digits_at(line, 1);
  return rank > 0 && line.substr(1 + rank).starts_with("] ") ? rank + 3 : 0;
}

// "(name, rank=0, pid=1234) "; the length, or 0.
std::size_t python_tag(std::string_view line) {
  if (!line.starts_with('(')) {
    return 0;
  }
  const std::size_t close = line.find(") ");
  if (close == std::string_view::npos ||
      line.substr(0, close).find(", rank=") == std::string_view::npos) {
    return 0;
  }
  return close + 2;
}

}  // namespace

std::string_view without_launcher_prefix(std::string_view line) {
  for (const auto prefix : {openmpi_tag, slurm_label, mpich_rank, python_tag}) {
    if (const std::size_t length = prefix(line); length > 0) {
      return line.substr(length);
    }
  }
  return line;
}

TextInput without_launcher_prefixes(const TextInput& input) {
  std::string text;
  text.reserve(input.text().size());
  for (int number = 1; number <= input.line_count(); ++number) {
    text += without_launcher_prefix(input.line(number));
    text += '\n';
  }
  return TextInput(input.name(), text);
}

}  // namespace railsim::calibrate::parse
