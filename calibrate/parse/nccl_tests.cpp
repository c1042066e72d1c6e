// File: calibrate/parse/nccl_tests.cpp
// Lines are read without their launcher prefixes (launcher_prefix.hpp). A run's header lines
// may come in any subset (an excerpt may start at the column header); a
// second header part of a kind already seen starts the next run, which is an error when the
// first never printed its table (a run that died before measuring anything).
#include "calibrate/parse/nccl_tests.hpp"

#include "calibrate/parse/fields.hpp"
#include "calibrate/parse/launcher_prefix.hpp"
#include "calibrate/parse/table_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string_view>

namespace railsim::calibrate::parse {
namespace {

constexpr std::array<std::string_view, 13> kColumns = {"size",  "count", "type",  "redop",  "root",
                                                       "time",  "algbw", "busbw", "#wrong", "time",
                                                       "algbw", "busbw", "#wrong"};
// Releases before 2.10: no root column, and the largest error instead of #wrong.
constexpr std::array<std::string_view, 12> kOldColumns = {"size", "count", "type",  "redop",
                                                          "time", "algbw", "busbw", "error",
                                                          "time", "algbw", "busbw", "error"};
constexpr std::array<std::string_view, 8> kUnits = {"(B)",    "(elements)", "(us)",   "(GB/s)",
                                                    "(GB/s)", "(us)",       "(GB/s)", "(GB/s)"};
// nccl-tests' test_typenames and test_opnames, and "none" for AllGather, AllToAll, ...
constexpr std::array<std::string_view, 12> kTypes = {"int8",   "uint8",    "int32",  "uint32",
                                                     "int64",  "uint64",   "half",   "float",
                                                     "double", "bfloat16", "f8e4m3", "f8e5m2"};
constexpr std::array<std::string_view, 7> kRedops = {"sum", "prod",   "max", "min",
                                                     "avg", "mulsum", "none"};
constexpr std::string_view kPerfSuffix = "_perf";

// A value of the settings line starts like a number ("2(factor)", "-1").
bool is_value(std::string_view word) {
  return !word.empty() && ((word[0] >= '0' && word[0] <= '9') || word[0] == '-');
}

template <std::size_t N>
bool one_of(std::string_view word, const std::array<std::string_view, N>& words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// The fields after a leading "#" ("# nThread 1" -> nThread, 1); empty for a line that is not a
// comment.
std::vector<std::string_view> comment_fields(std::string_view text) {
  text = trim(text);
  if (!text.starts_with('#')) {
    return {};
  }
  return split_fields(text.substr(1));
}

bool is_comment(std::string_view text) { return trim(text).starts_with('#'); }

bool starts_with_words(const std::vector<std::string_view>& fields,
                       std::initializer_list<std::string_view> words) {
  return fields.size() >= words.size() && std::equal(words.begin(), words.end(), fields.begin());
}

// The parts of a run's header; seeing one twice means a new run began.
enum class Part { kVersion, kProgram, kSettings };

bool is_run_start(const std::vector<std::string_view>& f) {
  return starts_with_words(f, {"nccl-tests", "version"}) ||
         starts_with_words(f, {"Collective", "test", "starting:"}) ||
         starts_with_words(f, {"nThread"}) || starts_with_words(f, {"size", "count"});
}

class Reader {
 public:
  explicit Reader(const TextInput& input) : input_(input) {}

  NcclTestsOutput read() {
    int number = 1;
    while (number <= input_.line_count()) {
      number = read_line(number);
    }
    if (run_.line != 0) {
      input_.fail(run_.line,
                  "expected the results table of the run that starts here, got the end "
                  "of the file");
    }
    if (output_.runs.empty()) {
      input_.fail(0,
                  "expected nccl-tests output (a '#  size  count  type ...' column header), "
                  "found none");
    }
    return std::move(output_);
  }

 private:
  // Handles line `number`; returns the next line to read.
  int read_line(int number) {
    const Line line = line_of(input_, number);
    const std::vector<std::string_view> f = comment_fields(line.text);
    if (!is_comment(line.text)) {
      note_program_in_command(line.text);
    } else if (starts_with_words(f, {"nccl-tests", "version"})) {
      begin(number, Part::kVersion);
      if (f.size() < 3) {
        line.fail("expected a version after 'nccl-tests version'");
      }
      run_.version = std::string(f[2]);
    } else if (starts_with_words(f, {"Collective", "test", "starting:"})) {
      begin(number, Part::kProgram);
      if (f.size() != 4 || !f[3].ends_with(kPerfSuffix)) {
        line.fail(
            "expected the name of an nccl-tests program (such as all_reduce_perf) after "
            "'Collective test starting:'");
      }
      run_.program = std::string(f[3]);
    } else if (starts_with_words(f, {"nThread"})) {
      begin(number, Part::kSettings);
      read_settings(line, f);
    } else if (starts_with_words(f, {"Rank"})) {
      begin_if_new(number);
      read_device(line, f);
    } else if (starts_with_words(f, {"size"})) {
      begin_if_new(number);
      return read_table(number);
    }
    return number + 1;
  }

  void begin_if_new(int number) {
    if (run_.line == 0) {
      run_.line = number;
    }
  }

  void begin(int number, Part part) {
    const bool seen = (part == Part::kVersion && !run_.version.empty()) ||
                      (part == Part::kProgram && !run_.program.empty()) ||
                      (part == Part::kSettings && !run_.settings.empty());
    if (seen) {
      input_.fail(run_.line, fmt::format("expected the results table of the run that starts here "
                                         "before the next run (line {})",
                                         number));
    }
    begin_if_new(number);
  }

  // An excerpt without "Collective test starting:" may still show the command that ran
  // ("mpirun ... ./all_reduce_perf -b 8 ..."): the program is taken from there.
  void note_program_in_command(std::string_view text) {
    for (const std::string_view word : split_fields(text)) {
      if (const std::string_view program = perf_program(word); !program.empty()) {
        command_program_ = std::string(program);
      }
    }
  }

  // "nThread 1 nGpus 1 minBytes 33554432 ... step: 2(factor) warmup iters: 5 ... graph: 0"
  void read_settings(const Line& line, const std::vector<std::string_view>& f) {
    std::string name;
    for (const std::string_view word : f) {
      if (!is_value(word)) {
        append_word(name, word);
        continue;
      }
      if (name.ends_with(':')) {
        name.pop_back();
      }
      if (name.empty()) {
        line.fail(fmt::format("expected a setting's name before {}", quoted(word)));
      }
      std::string_view value = word;
      const std::size_t paren = value.find('(');
      if (paren != std::string_view::npos) {
        const std::string_view kind = value.substr(paren);
        if (kind != "(factor)" && kind != "(bytes)") {
          line.fail(
              fmt::format("expected {} as N(factor) or N(bytes), got {}", name, quoted(word)));
        }
        run_.step_kind = std::string(kind.substr(1, kind.size() - 2));
        value = value.substr(0, paren);
      }
      run_.settings.emplace_back(name, integer_field(line, value, "an integer for " + name,
                                                     std::numeric_limits<std::int64_t>::min()));
      name.clear();
    }
    if (!name.empty()) {
      line.fail(fmt::format("expected a value after '{}'", name));
    }
  }

  // "Rank  0 Group  0 Pid 4180122 on cnode3-002 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3"
  // (releases before thread groups print no "Group  0").
  void read_device(const Line& line, const std::vector<std::string_view>& f) {
    std::size_t at = 0;
    const auto expect = [&](std::string_view word) {
      if (at >= f.size() || f[at] != word) {
        line.fail(
            fmt::format("expected '{}' in the rank line 'Rank R Group G Pid P on HOST "
                        "device D [BUS] MODEL', got {}",
                        word, quoted(at < f.size() ? f[at] : std::string_view("the end"))));
      }
      ++at;
    };
    const auto next = [&](std::string_view what) {
      if (at >= f.size()) {
        line.fail(fmt::format("expected {} in the rank line, got the end of the line", what));
      }
      return f[at++];
    };
    constexpr std::int64_t kMaxIndex = 1 << 24;
    NcclTestsDevice device;
    device.line = line.number;
    expect("Rank");
    device.rank = static_cast<int>(integer_field(line, next("a rank"), "a rank", 0, kMaxIndex));
    if (at < f.size() && f[at] == "Group") {
      ++at;
      device.group =
          static_cast<int>(integer_field(line, next("a group"), "a group", 0, kMaxIndex));
    }
    expect("Pid");
    device.pid = integer_field(line, next("a process id"), "a process id");
    expect("on");
    device.host = std::string(next("a host name"));
    expect("device");
    device.device =
        static_cast<int>(integer_field(line, next("a device"), "a device index", 0, kMaxIndex));
    const std::string_view bus = next("a bus id in brackets");
    if (bus.size() < 2 || !bus.starts_with('[') || !bus.ends_with(']')) {
      line.fail(
          fmt::format("expected a bus id in brackets such as [0000:1b:00], got {}", quoted(bus)));
    }
    device.bus_id = std::string(bus.substr(1, bus.size() - 2));
    std::vector<std::string_view> model(f.begin() + static_cast<std::ptrdiff_t>(at), f.end());
    device.model = fmt::format("{}", fmt::join(model, " "));
    for (const NcclTestsDevice& earlier : run_.devices) {
      if (earlier.rank == device.rank && earlier.group == device.group) {
        line.fail(fmt::format("rank {} is listed twice in this run (first at line {})", device.rank,
                              earlier.line));
      }
    }
    run_.devices.push_back(std::move(device));
  }

  // The four columns from `at`: time, algbw, busbw, then #wrong or (old tables) the error.
  static NcclTestsResult result(const Line& line,
                                const std::vector<std::string_view>& f,
                                std::size_t at,
                                bool old_table) {
    NcclTestsResult r;
    r.time_us = number_field(line, f[at], "a time in us");
    r.algbw_GBps = number_field(line, f[at + 1], "an algbw in GB/s");
    r.busbw_GBps = number_field(line, f[at + 2], "a busbw in GB/s");
    if (old_table) {
      r.max_error = number_field(line, f[at + 3], "the largest error");
    } else if (f[at + 3] != "N/A") {
      r.wrong = integer_field(line, f[at + 3], "a count of wrong elements (#wrong) or N/A");
    }
    return r;
  }

  void add_row(const TableRow& table_row, bool old_table) {
    const Line& line = table_row.line;
    const auto& f = table_row.fields;
    NcclTestsRow row;
    row.line = line.number;
    row.size_bytes = integer_field(line, f[0], "a size in bytes");
    row.count = integer_field(line, f[1], "a count of elements");
    if (!one_of(f[2], kTypes)) {
      line.fail(
          fmt::format("expected a data type ({}), got {}", fmt::join(kTypes, ", "), quoted(f[2])));
    }
    row.type = std::string(f[2]);
    if (!one_of(f[3], kRedops)) {
      line.fail(
          fmt::format("expected a reduction ({}), got {}", fmt::join(kRedops, ", "), quoted(f[3])));
    }
    row.redop = std::string(f[3]);
    const std::size_t results = old_table ? 4 : 5;
    if (!old_table) {
      row.root = integer_field(line, f[4], "a root rank (-1 for none)", -1);
    }
    row.out_of_place = result(line, f, results, old_table);
    row.in_place = result(line, f, results + 4, old_table);
    for (const NcclTestsRow& earlier : run_.rows) {
      if (earlier.size_bytes == row.size_bytes && earlier.type == row.type &&
          earlier.redop == row.redop && earlier.root == row.root) {
        line.fail(fmt::format("a second row for {} bytes in this run (the first at line {})",
                              row.size_bytes, earlier.line));
      }
    }
    run_.rows.push_back(std::move(row));
  }

  // The column header is at line `at`; reads the units line, the rows and the closing lines.
  int read_table(int at) {
    const Line header = line_of(input_, at);
    const std::vector<std::string_view> names = comment_fields(header.text);
    const bool old_table =
        std::equal(names.begin(), names.end(), kOldColumns.begin(), kOldColumns.end());
    if (!old_table && !std::equal(names.begin(), names.end(), kColumns.begin(), kColumns.end())) {
      header.fail(
          fmt::format("expected the nccl-tests columns '{}' (or, before 2.10, '{}'), got {}",
                      fmt::join(kColumns, " "), fmt::join(kOldColumns, " "),
                      quoted(fmt::format("{}", fmt::join(names, " ")))));
    }
    if (at == input_.line_count()) {
      header.fail(
          "expected the units line '(B) (elements) (us) (GB/s) ...' under the column "
          "header, got the end of the file");
    }
    const Line units = line_of(input_, at + 1);
    const std::vector<std::string_view> unit_names = comment_fields(units.text);
    if (!std::equal(unit_names.begin(), unit_names.end(), kUnits.begin(), kUnits.end())) {
      units.fail(fmt::format("expected the units '{}' under the column header, got {}",
                             fmt::join(kUnits, " "), quoted(trim(units.text))));
    }
    const std::vector<std::string_view> columns(old_table ? kOldColumns.begin() : kColumns.begin(),
                                                old_table ? kOldColumns.end() : kColumns.end());
    const TableEnd end = read_table_rows(input_, at + 2, columns, is_comment,
                                         [&](const TableRow& row) { add_row(row, old_table); });
    if (run_.rows.empty()) {
      input_.fail(std::min(end.next_line, input_.line_count()),
                  fmt::format("expected result rows under the column header at line {}", at));
    }
    const int next = read_footer(end.next_line);
    finish_run();
    return next;
  }

  // "# Out of bounds values : 0 OK" and "# Avg bus bandwidth : 437.957" after the table; returns
  // the line after the average, or the start of the next run when the average never came.
  int read_footer(int number) {
    run_.truncated = true;
    for (; number <= input_.line_count(); ++number) {
      const Line line = line_of(input_, number);
      const std::vector<std::string_view> f = comment_fields(line.text);
      if (!is_comment(line.text)) {
        if (is_row_candidate(split_fields(line.text))) {
          line.fail(
              "expected '# Avg bus bandwidth' after the table, got a table row after the "
              "table had ended");
        }
        continue;
      }
      if (is_run_start(f) || starts_with_words(f, {"Rank"})) {
        return number;
      }
      if (starts_with_words(f, {"Out", "of", "bounds", "values", ":"}) && f.size() >= 6) {
        run_.out_of_bounds = integer_field(line, f[5], "a count of out-of-bounds values");
      } else if (starts_with_words(f, {"Avg", "bus", "bandwidth", ":"})) {
        if (f.size() != 5) {
          line.fail("expected one number after '# Avg bus bandwidth :'");
        }
        run_.avg_busbw_GBps = number_field(line, f[4], "an average bus bandwidth in GB/s");
        run_.truncated = false;
        return number + 1;
      }
    }
    return number;
  }

  void finish_run() {
    if (run_.program.empty()) {
      run_.program = command_program_;
    }
    run_.op = run_.program.substr(
        0, run_.program.size() - std::min(run_.program.size(), kPerfSuffix.size()));
    output_.runs.push_back(std::move(run_));
    run_ = NcclTestsRun{};
    command_program_.clear();
  }

  const TextInput& input_;
  NcclTestsOutput output_;
  NcclTestsRun run_;  // the run being read; line == 0 until one of its lines is seen
  std::string command_program_;
};

}  // namespace

NcclTestsOutput parse_nccl_tests(const TextInput& input) {
  const TextInput lines = without_launcher_prefixes(input);
  NcclTestsOutput output = Reader(lines).read();
  output.debug = read_nccl_debug(lines);
  std::vector<RunLines> spans;
  spans.reserve(output.runs.size());
  for (const NcclTestsRun& run : output.runs) {
    spans.push_back({run.line, run.rows.back().line});
  }
  std::vector<std::vector<NcclSetting>> environments = run_environments(lines, spans);
  for (std::size_t i = 0; i < output.runs.size(); ++i) {
    output.runs[i].environment = std::move(environments[i]);
  }
  return output;
}

std::string_view perf_program(std::string_view word) {
  const std::size_t slash = word.rfind('/');
  word = slash == std::string_view::npos ? word : word.substr(slash + 1);
  return word.size() > kPerfSuffix.size() && word.ends_with(kPerfSuffix) ? word
                                                                         : std::string_view();
}

bool looks_like_nccl_tests(const TextInput& input) {
  for (int number = 1; number <= input.line_count(); ++number) {
    if (starts_with_words(comment_fields(without_launcher_prefix(input.line(number))),
                          {"size", "count", "type"})) {
      return true;
    }
  }
  return false;
}

}  // namespace railsim::calibrate::parse
