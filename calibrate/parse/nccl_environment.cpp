// File: calibrate/parse/nccl_environment.cpp
// Read leniently, as the INFO lines are (nccl_debug.cpp): a line that does not read as a setting
// is chatter, never an error.
#include "calibrate/parse/nccl_environment.hpp"

#include "calibrate/parse/fields.hpp"
#include "calibrate/parse/nccl_debug.hpp"
#include "calibrate/parse/nccl_tests.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace railsim::calibrate::parse {
namespace {

constexpr std::string_view kSetBy = " set by environment to ";

// How far a setting reaches, weakest first: an export, a command's assignment, NCCL's word.
enum class Reach { kLaterRuns, kNextRun, kThisRun };

struct Said {
  Reach reach = Reach::kLaterRuns;
  NcclSetting setting;
};

bool is_nccl_name(std::string_view name) {
  return name.size() > 5 && name.starts_with("NCCL_") &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return std::isupper(static_cast<unsigned char>(c)) != 0 ||
                  std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_';
         });
}

// A shell word's value without its quotes or a closing ';'.
std::string_view unquoted(std::string_view value) {
  if (value.ends_with(';')) {
    value.remove_suffix(1);
  }
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  return value;
}

void add(
    Reach reach, std::string_view name, std::string_view value, int line, std::vector<Said>& out) {
  if (is_nccl_name(name)) {
    out.push_back({reach, {std::string(name), std::string(unquoted(value)), line}});
  }
}

// "NCCL_ALGO=Ring", the form of an export, a command's prefix and mpirun's -x.
void add_assignment(Reach reach, std::string_view word, int line, std::vector<Said>& out) {
  const std::size_t eq = word.find('=');
  if (eq != std::string_view::npos) {
    add(reach, word.substr(0, eq), word.substr(eq + 1), line, out);
  }
}

void read_command(const std::vector<std::string_view>& words,
                  std::size_t program,
                  int line,
                  std::vector<Said>& out) {
  for (std::size_t i = 0; i < program; ++i) {
    const std::string_view word = words[i];
    if ((word == "-genv" || word == "-env") && i + 2 < program) {
      add(Reach::kNextRun, words[i + 1], words[i + 2], line, out);
      i += 2;
    } else if (word.starts_with("--export=")) {
      std::string_view list = word.substr(9);
      while (!list.empty()) {
        const std::size_t comma = list.find(',');
        add_assignment(Reach::kNextRun, list.substr(0, comma), line, out);
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
      }
    } else {
      add_assignment(Reach::kNextRun, word, line, out);
    }
  }
}

void read_line(std::string_view text, int line, std::vector<Said>& out) {
  if (const std::size_t info = text.find(kNcclInfo); info != std::string_view::npos) {
    const std::string_view message = trim(text.substr(info + kNcclInfo.size()));
    if (const std::size_t at = message.find(kSetBy); at != std::string_view::npos) {
      std::string_view value = trim(message.substr(at + kSetBy.size()));
      if (value.ends_with('.')) {
        value.remove_suffix(1);  // the integer settings' "set by environment to 2."
      }
      add(Reach::kThisRun, message.substr(0, at), value, line, out);
    }
    return;
  }
  const std::vector<std::string_view> words = split_fields(text);
  const auto program = std::find_if(words.begin(), words.end(),
                                    [](std::string_view w) { return !perf_program(w).empty(); });
  if (program != words.end()) {
    read_command(words, static_cast<std::size_t>(program - words.begin()), line, out);
    return;
  }
  const auto exported = std::find(words.begin(), words.end(), "export");
  for (auto word = exported; word != words.end(); ++word) {
    add_assignment(Reach::kLaterRuns, *word, line, out);
  }
}

}  // namespace

std::vector<std::vector<NcclSetting>> run_environments(const TextInput& input,
                                                       const std::vector<RunLines>& runs) {
  std::vector<Said> said;
  for (int number = 1; number <= input.line_count(); ++number) {
    read_line(input.line(number), number, said);
  }
  std::vector<std::vector<NcclSetting>> out;
  out.reserve(runs.size());
  int previous_last = 0;
  for (const RunLines& run : runs) {
    const auto reaches = [&](const Said& s) {
      switch (s.reach) {
        case Reach::kLaterRuns:
          return s.setting.line < run.first;
        case Reach::kNextRun:
          return s.setting.line > previous_last && s.setting.line < run.first;
        case Reach::kThisRun:
          return s.setting.line > previous_last && s.setting.line <= run.last;
      }
      return false;
    };
    // A stronger word over a weaker; among NCCL's own (one per rank), the first.
    std::map<std::string, const Said*> in_force;
    for (const Said& s : said) {
      if (!reaches(s)) {
        continue;
      }
      const Said*& kept = in_force[s.setting.name];
      if (kept == nullptr || kept->reach < s.reach ||
          (kept->reach == s.reach && s.reach != Reach::kThisRun)) {
        kept = &s;
      }
    }
    std::vector<NcclSetting>& settings = out.emplace_back();
    for (const auto& [name, s] : in_force) {
      settings.push_back(s->setting);
    }
    previous_last = run.last;
  }
  return out;
}

}  // namespace railsim::calibrate::parse
