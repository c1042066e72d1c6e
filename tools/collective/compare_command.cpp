// File: tools/collective/compare_command.cpp
// `railsim compare A.json B.json ...`: the first scenario's workload on every scenario's
// system (each with its own faults and background traffic), side by side per size, with each
// system's bus bandwidth as a ratio to the first's: how much a design choice costs.
#include "sim/input_error.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/cli_support/csv_row.hpp"
#include "tools/collective/size_series.hpp"
#include "tools/command.hpp"
#include "tools/max_memory_option.hpp"
#include "tools/progress_bar.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;

struct Compared {
  std::string file;
  SizeSeries series;
};

double ratio(const SeriesRow& row, const SeriesRow& first) {
  return first.result.busbw_GBps > 0.0 ? row.result.busbw_GBps / first.result.busbw_GBps : 0.0;
}

double average_busbw(const SizeSeries& series) {
  double sum = 0.0;
  for (const SeriesRow& row : series.rows) {
    sum += row.result.busbw_GBps;
  }
  return sum / static_cast<double>(series.rows.size());
}

void print_table(std::ostream& out, const std::vector<Compared>& systems) {
  const SizeSeries& first = systems.front().series;
  const models::Communicator& comm = first.request.comm;
  fmt::print(out, "# railsim compare: {} of {} ({} nodes x {} GPUs) on {} systems\n",
             models::op_name(first.request.op), systems.front().file, comm.nodes,
             comm.gpus_per_node, systems.size());
  fmt::print(out, "# time in us, busbw in GB/s (nccl-tests' definitions); ratio = busbw / {}'s\n",
             first.system_name);
  for (std::size_t s = 0; s < systems.size(); ++s) {
    fmt::print(out, "#   [{}] {}  ({})\n", s, systems[s].series.system_name, systems[s].file);
  }
  fmt::print(out, "#\n# {:>12}", "size (B)");
  for (std::size_t s = 0; s < systems.size(); ++s) {
    fmt::print(out, "  {:>9} {:>7}", fmt::format("[{}] time", s), "busbw");
    if (s > 0) {
      fmt::print(out, " {:>6}", "ratio");
    }
  }
  fmt::print(out, "\n");
  for (std::size_t i = 0; i < first.rows.size(); ++i) {
    fmt::print(out, "  {:12d}", first.rows[i].size);
    for (std::size_t s = 0; s < systems.size(); ++s) {
      const SeriesRow& row = systems[s].series.rows[i];
      fmt::print(out, "  {:9.2f} {:7.2f}", sim::to_us(row.result.time), row.result.busbw_GBps);
      if (s > 0) {
        fmt::print(out, " {:6.3f}", ratio(row, first.rows[i]));
      }
    }
    fmt::print(out, "\n");
  }
  fmt::print(out, "# Avg bus bandwidth   ");
  const double base = average_busbw(first);
  for (std::size_t s = 0; s < systems.size(); ++s) {
    const double avg = average_busbw(systems[s].series);
    fmt::print(out, "  {:>9} {:7.2f}", "", avg);
    if (s > 0) {
      fmt::print(out, " {:6.3f}", base > 0.0 ? avg / base : 0.0);
    }
  }
  fmt::print(out, "\n");
}

void print_json(std::ostream& out, const std::vector<Compared>& systems) {
  const SizeSeries& first = systems.front().series;
  nlohmann::ordered_json doc;
  doc["op"] = std::string(models::op_name(first.request.op));
  doc["workload_from"] = systems.front().file;
  doc["nodes"] = first.request.comm.nodes;
  doc["ranks"] = first.request.comm.ranks();
  doc["systems"] = nlohmann::ordered_json::array();
  for (const Compared& c : systems) {
    doc["systems"].push_back({{"name", c.series.system_name}, {"file", c.file}});
  }
  doc["rows"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < first.rows.size(); ++i) {
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    for (const Compared& c : systems) {
      const SeriesRow& row = c.series.rows[i];
      results.push_back({{"system", c.series.system_name},
                         {"time_us", sim::to_us(row.result.time)},
                         {"algbw_GBps", row.result.algbw_GBps},
                         {"busbw_GBps", row.result.busbw_GBps},
                         {"ratio", ratio(row, first.rows[i])}});
    }
    doc["rows"].push_back({{"size_bytes", first.rows[i].size}, {"results", results}});
  }
  out << doc.dump(2) << "\n";
}

void print_csv(std::ostream& out, const std::vector<Compared>& systems) {
  const SizeSeries& first = systems.front().series;
  fmt::print(out, "size_bytes,system,time_us,algbw_GBps,busbw_GBps,ratio\n");
  for (std::size_t i = 0; i < first.rows.size(); ++i) {
    for (const Compared& c : systems) {
      const SeriesRow& row = c.series.rows[i];
      // The system's name may be a path with commas in it.
      out << csv_row({fmt::format("{}", row.size), c.series.system_name,
                      fmt::format("{:.3f}", sim::to_us(row.result.time)),
                      fmt::format("{:.4f}", row.result.algbw_GBps),
                      fmt::format("{:.4f}", row.result.busbw_GBps),
                      fmt::format("{:.4f}", ratio(row, first.rows[i]))});
    }
  }
}

struct CompareOptions {
  std::vector<std::string> paths;  // the first one's workload runs on every system
  OutputFormat format = OutputFormat::kText;
  std::string profile_path;
  models::WorkLimit limit;  // --max-memory, for each system
  bool quiet = false;       // no progress line
};

// nullopt after --help.
std::optional<CompareOptions> parse_options(const std::vector<std::string>& args,
                                            std::ostream& out) {
  CompareOptions o;
  std::string format = "table";
  po::options_description options(
      "railsim compare A.json B.json [...] [--format table|json|csv] [--profile P.json]");
  options.add_options()("scenarios", po::value(&o.paths)->multitoken()->required(),
                        "scenario files; the first one's workload runs on every system")(
      "format", po::value(&format)->default_value("table"), "table, json or csv")(
      "profile", po::value(&o.profile_path),
      "a calibration profile (railsim calibrate -o) applied to every system");
  add_max_memory_option(options, o.limit, "for each system");
  add_quiet_option(options, o.quiet);
  po::positional_options_description positional;
  positional.add("scenarios", -1);
  po::variables_map vm;
  if (!parse_command_line(args, options, positional,
                          "Runs one workload on several systems and prints them side by side.", out,
                          vm)) {
    return std::nullopt;
  }
  o.format = parse_format(format, kTableJsonCsv);
  if (o.paths.size() < 2) {
    throw sim::InputError("compare: expected at least two scenario files");
  }
  return o;
}

int run(const CompareOptions& o, std::ostream& out) {
  std::vector<models::scenario::ScenarioFile> scenarios;
  scenarios.reserve(o.paths.size());
  for (const std::string& path : o.paths) {
    scenarios.push_back(models::scenario::load_scenario_file(path));
  }
  const models::scenario::CollectiveWorkload workload = workload_of(scenarios.front(), o.paths[0]);
  for (std::size_t s = 0; s < o.paths.size(); ++s) {
    check_series_memory(scenarios[s].system, workload, o.limit, o.paths[s]);
  }
  const std::optional<LoadedProfile> profile = load_profile(o.profile_path);
  std::vector<Compared> systems;
  systems.reserve(o.paths.size());
  ProgressBar bar(workload_sizes(workload).size() * o.paths.size(), progress_stream(o.quiet),
                  "size");
  for (std::size_t s = 0; s < o.paths.size(); ++s) {
    try {
      systems.push_back(
          {o.paths[s], run_calibrated_series(scenarios[s], workload, profile ? &*profile : nullptr,
                                             {}, [&bar] { bar.advance(); })});
    } catch (const sim::InputError& error) {
      throw sim::InputError(fmt::format("{}: {}", o.paths[s], error.what()));
    }
  }
  bar.finish();
  if (o.format == OutputFormat::kJson) {
    print_json(out, systems);
  } else if (o.format == OutputFormat::kCsv) {
    print_csv(out, systems);
  } else {
    print_table(out, systems);
  }
  return 0;
}

}  // namespace

int run_compare(const std::vector<std::string>& args, std::ostream& out) {
  return parse_and_run(args, out, parse_options, run);
}

}  // namespace railsim::tools
