// File: calibrate/parse/perftest.cpp
// A test is a title line ("RDMA_Write BW Test"), its settings up to a rule of dashes, the
// address block (skipped), the column header ("#bytes ..."), then rows up to the closing rule.
#include "calibrate/parse/perftest.hpp"

#include "calibrate/parse/fields.hpp"
#include "calibrate/parse/table_rows.hpp"
#include "sim/assert.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

namespace railsim::calibrate::parse {
namespace {

constexpr std::string_view kBandwidthTitle = " BW Test";
constexpr std::string_view kLatencyTitle = " Latency Test";
constexpr std::string_view kBidirectional = " Bidirectional";
constexpr double kMebibyte = 1024.0 * 1024.0;

struct Title {
  PerftestVerb verb = PerftestVerb::kWrite;
  PerftestKind kind = PerftestKind::kBandwidth;
  bool bidirectional = false;
};

bool is_rule(std::string_view text) {
  text = trim(text);
  return text.size() >= 10 && text.find_first_not_of('-') == std::string_view::npos;
}

// The test name before " BW Test" or " Latency Test" ("RDMA_Write", "Send Bidirectional"), or
// nothing if the line is no title: one word, optionally followed by "Bidirectional".
std::optional<std::string_view> title_name(std::string_view text, PerftestKind& kind) {
  text = trim(text);
  for (const auto& [suffix, k] : {std::pair{kBandwidthTitle, PerftestKind::kBandwidth},
                                  std::pair{kLatencyTitle, PerftestKind::kLatency}}) {
    if (text.size() <= suffix.size() || !text.ends_with(suffix)) {
      continue;
    }
    const std::string_view name = text.substr(0, text.size() - suffix.size());
    std::string_view word = name;
    if (word.ends_with(kBidirectional)) {
      word.remove_suffix(kBidirectional.size());
    }
    if (split_fields(word).size() != 1 || word != trim(word)) {
      return std::nullopt;
    }
    kind = k;
    return name;
  }
  return std::nullopt;
}

bool is_title(std::string_view text) {
  PerftestKind kind{};
  return title_name(text, kind).has_value();
}

Title parse_title(const Line& line) {
  Title title;
  std::string_view name = *title_name(line.text, title.kind);
  if (name.ends_with(kBidirectional)) {
    title.bidirectional = true;
    name.remove_suffix(kBidirectional.size());
  }
  constexpr std::array kVerbs = {std::pair{std::string_view("RDMA_Write"), PerftestVerb::kWrite},
                                 std::pair{std::string_view("RDMA_Read"), PerftestVerb::kRead},
                                 std::pair{std::string_view("Send"), PerftestVerb::kSend}};
  const auto* verb = std::find_if(kVerbs.begin(), kVerbs.end(),
                                  [&](const auto& entry) { return entry.first == name; });
  if (verb == kVerbs.end()) {
    line.fail(fmt::format("expected a perftest test of RDMA_Write, RDMA_Read or Send, got {}",
                          quoted(name)));
  }
  title.verb = verb->second;
  return title;
}

// " Dual-port       : OFF\t\tDevice         : mlx5_0": one or two "Name : value" pairs, each
// value a single word.
void parse_settings_line(const Line& line, std::vector<PerftestSetting>& settings) {
  std::string_view rest = line.text;
  while (!trim(rest).empty()) {
    const std::size_t colon = rest.find(':');
    const std::string_view name = trim(rest.substr(0, colon));
    if (colon == std::string_view::npos || name.empty()) {
      line.fail(fmt::format("expected the test's settings as 'Name : value', got {}",
                            quoted(trim(line.text))));
    }
    rest.remove_prefix(colon + 1);
    const std::vector<std::string_view> words = split_fields(rest);
    if (words.empty()) {
      line.fail(fmt::format("expected a value after '{} :'", name));
    }
    settings.push_back(PerftestSetting{std::string(name), std::string(words.front()), line.number});
    rest.remove_prefix(static_cast<std::size_t>(words.front().data() - rest.data()) +
                       words.front().size());
  }
}

const PerftestSetting* find_setting(const PerftestRun& run, std::string_view name) {
  const auto it = std::find_if(run.settings.begin(), run.settings.end(),
                               [&](const PerftestSetting& s) { return s.name == name; });
  return it == run.settings.end() ? nullptr : &*it;
}

const PerftestSetting& required_setting(const TextInput& input,
                                        const PerftestRun& run,
                                        std::string_view name) {
  const PerftestSetting* setting = find_setting(run, name);
  if (setting == nullptr) {
    input.fail(run.line, fmt::format("expected '{} : ...' in the header of this test", name));
  }
  return *setting;
}

std::string optional_setting(const PerftestRun& run, std::string_view name) {
  const PerftestSetting* setting = find_setting(run, name);
  return setting == nullptr ? std::string() : setting->value;
}

void type_settings(const TextInput& input, PerftestRun& run) {
  run.device = required_setting(input, run, "Device").value;
  const PerftestSetting& qps = required_setting(input, run, "Number of qps");
  run.qps = static_cast<int>(
      integer_field(line_of(input, qps.line), qps.value, "a number of queue pairs", 1, 1 << 20));
  const PerftestSetting& mtu = required_setting(input, run, "Mtu");
  std::string_view mtu_bytes = mtu.value;
  if (!mtu_bytes.ends_with("[B]")) {
    input.fail(mtu.line, fmt::format("expected an MTU such as 4096[B], got {}", quoted(mtu.value)));
  }
  mtu_bytes.remove_suffix(3);
  run.mtu_bytes = static_cast<int>(
      integer_field(line_of(input, mtu.line), mtu_bytes, "an MTU in bytes", 1, 1 << 20));
  run.link_type = optional_setting(run, "Link type");
  run.transport_type = optional_setting(run, "Transport type");
  run.connection_type = optional_setting(run, "Connection type");
}

// The column names of a result header: "#bytes" and "#iterations" are one word each, the others
// run to a word ending in ']' ("BW peak[MB/sec]", "99% percentile[usec]").
std::vector<std::string> header_columns(const Line& line) {
  std::vector<std::string> columns;
  std::string pending;
  for (const std::string_view word : split_fields(line.text)) {
    if (pending.empty() && word.starts_with('#')) {
      columns.emplace_back(word);
      continue;
    }
    append_word(pending, word);
    if (word.ends_with(']')) {
      columns.push_back(std::move(pending));
      pending.clear();
    }
  }
  if (!pending.empty()) {
    line.fail(
        fmt::format("expected a column name ending in its unit, such as 't_min[usec]', got {}",
                    quoted(pending)));
  }
  return columns;
}

PerftestRateUnit rate_unit(const Line& line, std::string_view column) {
  constexpr std::array kUnits = {
      std::pair{std::string_view("[MB/sec]"), PerftestRateUnit::kMBPerSec},
      std::pair{std::string_view("[MiB/sec]"), PerftestRateUnit::kMiBPerSec},
      std::pair{std::string_view("[Gb/sec]"), PerftestRateUnit::kGbPerSec}};
  for (const auto& [suffix, unit] : kUnits) {
    if (column.ends_with(suffix)) {
      return unit;
    }
  }
  line.fail(fmt::format("expected a bandwidth unit of MB/sec, MiB/sec or Gb/sec, got {}",
                        quoted(column)));
}

constexpr std::array<std::string_view, 9> kLatencyColumns = {
    "#bytes",        "#iterations",          "t_min[usec]",
    "t_max[usec]",   "t_typical[usec]",      "t_avg[usec]",
    "t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]"};
constexpr std::size_t kOldLatencyColumns = 5;  // releases without t_avg and the percentiles
constexpr std::array<std::string_view, 5> kBandwidthColumns = {
    "#bytes", "#iterations", "BW peak[unit]", "BW average[unit]", "MsgRate[Mpps]"};

// Checks the header against the columns of the run's kind, and takes the bandwidth unit from it.
void check_columns(const Line& line, const std::vector<std::string>& columns, PerftestRun& run) {
  const std::string got = quoted(fmt::format("{}", fmt::join(columns, " | ")));
  if (run.kind == PerftestKind::kLatency) {
    const bool known =
        columns.size() == kLatencyColumns.size() || columns.size() == kOldLatencyColumns;
    if (!known || !std::equal(columns.begin(), columns.end(), kLatencyColumns.begin())) {
      line.fail(fmt::format("expected the latency columns {}, got {}",
                            fmt::join(kLatencyColumns, " | "), got));
    }
    return;
  }
  const auto& expected = kBandwidthColumns;
  const bool shape = columns.size() == expected.size() && columns[0] == expected[0] &&
                     columns[1] == expected[1] && columns[2].starts_with("BW peak[") &&
                     columns[3].starts_with("BW average[") && columns[4] == expected[4];
  if (!shape) {
    line.fail(
        fmt::format("expected the bandwidth columns {}, got {}", fmt::join(expected, " | "), got));
  }
  run.bw_unit = rate_unit(line, columns[2]);
  if (rate_unit(line, columns[3]) != run.bw_unit) {
    line.fail(fmt::format("expected BW peak and BW average in one unit, got {} and {}",
                          quoted(columns[2]), quoted(columns[3])));
  }
}

// Fails when the test already has a row of `size`: perftest prints each size once.
template <class Row>
void check_new_size(const Line& line, const std::vector<Row>& rows, std::int64_t size) {
  for (const Row& earlier : rows) {
    if (earlier.size_bytes == size) {
      line.fail(fmt::format("a second row for {} bytes in this test (the first at line {})", size,
                            earlier.line));
    }
  }
}

void add_row(PerftestRun& run, const TableRow& row) {
  const Line& line = row.line;
  const auto& f = row.fields;
  const std::int64_t size = integer_field(line, f[0], "a message size in bytes (#bytes)", 1);
  if (run.kind == PerftestKind::kBandwidth) {
    check_new_size(line, run.bw_rows, size);
  } else {
    check_new_size(line, run.lat_rows, size);
  }
  const std::int64_t iterations = integer_field(line, f[1], "an iteration count (#iterations)", 1);
  if (run.kind == PerftestKind::kBandwidth) {
    run.bw_rows.push_back(PerftestBandwidthRow{
        size, iterations, number_field(line, f[2], "BW peak"),
        number_field(line, f[3], "BW average"), number_field(line, f[4], "MsgRate"), line.number});
    return;
  }
  PerftestLatencyRow lat{size,
                         iterations,
                         number_field(line, f[2], "t_min"),
                         number_field(line, f[3], "t_max"),
                         number_field(line, f[4], "t_typical"),
                         {},
                         {},
                         {},
                         {},
                         line.number};
  if (f.size() > 5) {
    lat.t_avg_us = number_field(line, f[5], "t_avg");
    lat.t_stdev_us = number_field(line, f[6], "t_stdev");
    lat.p99_us = number_field(line, f[7], "the 99% percentile");
    lat.p99_9_us = number_field(line, f[8], "the 99.9% percentile");
  }
  run.lat_rows.push_back(lat);
}

// Reads the test whose title is at line `at`; returns the line after it.
int read_run(const TextInput& input, int at, PerftestRun& run) {
  const Line title_line = line_of(input, at);
  const Title title = parse_title(title_line);
  run.title = std::string(trim(title_line.text));
  run.verb = title.verb;
  run.kind = title.kind;
  run.bidirectional = title.bidirectional;
  run.line = at;

  int number = at + 1;
  for (; number <= input.line_count() && !is_rule(input.line(number)); ++number) {
    parse_settings_line(line_of(input, number), run.settings);
  }
  type_settings(input, run);
  // The address block ("local address: LID ...", "GID: ...") up to the column header, the
  // first line starting with '#'.
  for (; number <= input.line_count(); ++number) {
    if (trim(input.line(number)).starts_with('#')) {
      break;
    }
    if (is_title(input.line(number))) {
      input.fail(number,
                 "expected the result header (#bytes #iterations ...) of the test at line " +
                     std::to_string(at) + " before the next test");
    }
  }
  if (number > input.line_count()) {
    input.fail(input.line_count(),
               fmt::format("expected the result header (#bytes #iterations ...) of the test at "
                           "line {}, got the end of the file",
                           at));
  }
  const Line header = line_of(input, number);
  const std::vector<std::string> names = header_columns(header);
  check_columns(header, names, run);
  const std::vector<std::string_view> columns(names.begin(), names.end());
  const TableEnd end = read_table_rows(
      input, number + 1, columns,
      [](std::string_view text) { return is_rule(text) || is_title(text); },
      [&](const TableRow& row) { add_row(run, row); });
  run.truncated = end.truncated || !is_rule(input.line(end.next_line));
  if (run.truncated && run.bw_rows.empty() && run.lat_rows.empty()) {
    input.fail(std::min(end.next_line, input.line_count()),
               fmt::format("expected result rows under the header at line {}", number));
  }
  return run.truncated ? end.next_line : end.next_line + 1;
}

}  // namespace

const char* to_string(PerftestVerb verb) {
  switch (verb) {
    case PerftestVerb::kWrite:
      return "write";
    case PerftestVerb::kRead:
      return "read";
    case PerftestVerb::kSend:
      return "send";
  }
  RAILSIM_UNREACHABLE("a PerftestVerb without a name");
}

const char* to_string(PerftestKind kind) { return kind == PerftestKind::kBandwidth ? "bw" : "lat"; }

const char* to_string(PerftestRateUnit unit) {
  switch (unit) {
    case PerftestRateUnit::kMBPerSec:
      return "MB/sec";
    case PerftestRateUnit::kMiBPerSec:
      return "MiB/sec";
    case PerftestRateUnit::kGbPerSec:
      return "Gb/sec";
  }
  RAILSIM_UNREACHABLE("a PerftestRateUnit without a name");
}

sim::Bandwidth to_bandwidth(double value, PerftestRateUnit unit) {
  return unit == PerftestRateUnit::kGbPerSec ? sim::gbps(value)
                                             : sim::bytes_per_s(value * kMebibyte);
}

PerftestOutput parse_perftest(const TextInput& input) {
  PerftestOutput output;
  int number = 1;
  while (number <= input.line_count()) {
    if (!is_title(input.line(number))) {
      ++number;
      continue;
    }
    PerftestRun run;
    number = read_run(input, number, run);
    output.runs.push_back(std::move(run));
  }
  if (output.runs.empty()) {
    input.fail(0, "expected perftest output (a line such as 'RDMA_Write BW Test'), found none");
  }
  return output;
}

bool looks_like_perftest(const TextInput& input) {
  bool title = false;
  for (int number = 1; number <= input.line_count(); ++number) {
    const std::string_view text = input.line(number);
    title = title || is_title(text);
    const std::vector<std::string_view> fields = split_fields(text);
    if (title && !fields.empty() && fields.front() == "#bytes") {
      return true;
    }
  }
  return false;
}

}  // namespace railsim::calibrate::parse
