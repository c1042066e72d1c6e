// File: tools/calibrate/parse_command.cpp
// `railsim parse FILE [--as FORMAT] [--format json|csv]`: a real tool's output (perftest,
// nccl-tests, nvidia-smi topo -m, ibdev2netdev, ibstat, lspci -vv) read by calibrate/'s parsers and
// printed as JSON (docs/calibration.md: fields named after the tool's own columns, one object
// per table) or as CSV (one line per table row). A table cut short is printed with
// "truncated": true and a warning on stderr.
#include "calibrate/parse/plausibility.hpp"
#include "calibrate/parse/tool_output.hpp"
#include "sim/input_error.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/cli_support/csv_row.hpp"
#include "tools/cli_support/output_format.hpp"
#include "tools/command.hpp"
#include "tools/strict_option.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;
namespace parse = calibrate::parse;
using Json = nlohmann::ordered_json;
using CsvRow = std::vector<std::string>;

constexpr std::array<Choice<OutputFormat>, 2> kFormats = {
    {{"json", OutputFormat::kJson}, {"csv", OutputFormat::kCsv}}};

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

template <class T>
Json or_null(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

template <class T>
std::string csv_cell(const std::optional<T>& value) {
  return value ? fmt::format("{}", *value) : std::string();
}

// ---- JSON -----------------------------------------------------------------------------------

Json to_json(const parse::PerftestOutput& output) {
  Json runs = Json::array();
  for (const parse::PerftestRun& run : output.runs) {
    Json settings = Json::object();
    for (const parse::PerftestSetting& setting : run.settings) {
      settings[setting.name] = setting.value;
    }
    Json rows = Json::array();
    for (const parse::PerftestBandwidthRow& row : run.bw_rows) {
      rows.push_back(
          {{"size_bytes", row.size_bytes},
           {"iterations", row.iterations},
           {"bw_peak", row.bw_peak},
           {"bw_average", row.bw_average},
           {"bw_peak_Gbps", parse::to_bandwidth(row.bw_peak, run.bw_unit).in_gbps()},
           {"bw_average_Gbps", parse::to_bandwidth(row.bw_average, run.bw_unit).in_gbps()},
           {"msg_rate_Mpps", row.msg_rate_Mpps}});
    }
    for (const parse::PerftestLatencyRow& row : run.lat_rows) {
      rows.push_back({{"size_bytes", row.size_bytes},
                      {"iterations", row.iterations},
                      {"t_min_us", row.t_min_us},
                      {"t_max_us", row.t_max_us},
                      {"t_typical_us", row.t_typical_us},
                      {"t_avg_us", or_null(row.t_avg_us)},
                      {"t_stdev_us", or_null(row.t_stdev_us)},
                      {"p99_us", or_null(row.p99_us)},
                      {"p99_9_us", or_null(row.p99_9_us)}});
    }
    Json entry = {{"test", run.title},
                  {"verb", parse::to_string(run.verb)},
                  {"kind", parse::to_string(run.kind)},
                  {"bidirectional", run.bidirectional},
                  {"device", run.device},
                  {"qps", run.qps},
                  {"mtu_bytes", run.mtu_bytes},
                  {"link_type", run.link_type},
                  {"transport_type", run.transport_type},
                  {"connection_type", run.connection_type},
                  {"settings", settings}};
    if (run.kind == parse::PerftestKind::kBandwidth) {
      entry["bw_unit"] = parse::to_string(run.bw_unit);
    }
    entry["truncated"] = run.truncated;
    entry["rows"] = rows;
    runs.push_back(entry);
  }
  return {{"format", "perftest"}, {"runs", runs}};
}

Json to_json(const parse::NcclTestsResult& result) {
  return {{"time_us", result.time_us},
          {"algbw_GBps", result.algbw_GBps},
          {"busbw_GBps", result.busbw_GBps},
          {"wrong", or_null(result.wrong)},
          {"max_error", or_null(result.max_error)}};
}

// A fact as {"value": ..., "line": N}, or null.
template <class T>
Json to_json(const std::optional<parse::DebugFact<T>>& fact) {
  return fact ? Json{{"value", fact->value}, {"line", fact->line}} : Json(nullptr);
}

// What NCCL_DEBUG=INFO lines said; null when the log has none.
Json to_json(const parse::NcclDebugFacts& debug) {
  if (debug.empty()) {
    return nullptr;
  }
  Json transports = Json::array();
  for (const parse::NcclTransport& t : debug.transports) {
    transports.push_back({{"kind", t.kind},
                          {"detail", t.detail},
                          {"gdr", t.gdr},
                          {"connections", t.connections},
                          {"line", t.line}});
  }
  return {{"version", to_json(debug.version)},
          {"network", to_json(debug.network)},
          {"hosts", debug.hosts},
          {"ranks", to_json(debug.ranks)},
          {"channels", to_json(debug.channels)},
          {"transports", transports}};
}

Json to_json(const parse::NcclTestsOutput& output) {
  Json runs = Json::array();
  for (const parse::NcclTestsRun& run : output.runs) {
    Json settings = Json::object();
    for (const auto& [name, value] : run.settings) {
      settings[name] = value;
    }
    Json devices = Json::array();
    for (const parse::NcclTestsDevice& d : run.devices) {
      devices.push_back({{"rank", d.rank},
                         {"group", d.group},
                         {"pid", d.pid},
                         {"host", d.host},
                         {"device", d.device},
                         {"bus_id", d.bus_id},
                         {"model", d.model}});
    }
    Json rows = Json::array();
    for (const parse::NcclTestsRow& row : run.rows) {
      Json entry = {{"size_bytes", row.size_bytes},
                    {"count", row.count},
                    {"type", row.type},
                    {"redop", row.redop},
                    {"root", or_null(row.root)}};
      entry.update(to_json(row.out_of_place));
      entry["in_place"] = to_json(row.in_place);
      rows.push_back(entry);
    }
    Json environment = Json::array();
    for (const parse::NcclSetting& s : run.environment) {
      environment.push_back({{"name", s.name}, {"value", s.value}, {"line", s.line}});
    }
    runs.push_back({{"op", run.op.empty() ? Json(nullptr) : Json(run.op)},
                    {"program", run.program},
                    {"ranks", run.ranks() > 0 ? Json(run.ranks()) : Json(nullptr)},
                    {"version", run.version},
                    {"settings", settings},
                    {"step_kind", run.step_kind},
                    {"devices", devices},
                    {"out_of_bounds", or_null(run.out_of_bounds)},
                    {"avg_busbw_GBps", or_null(run.avg_busbw_GBps)},
                    {"truncated", run.truncated},
                    {"nccl_environment", environment},
                    {"rows", rows}});
  }
  return {{"format", "nccl-tests"}, {"runs", runs}, {"nccl_debug", to_json(output.debug)}};
}

Json to_json(const parse::NvidiaSmiTopo& topo) {
  Json rows = Json::array();
  for (const parse::TopoRow& row : topo.rows) {
    Json links = Json::object();
    for (std::size_t i = 0; i < row.links.size(); ++i) {
      links[topo.devices[i]] = parse::to_string(row.links[i]);
    }
    Json affinity = Json::object();
    for (std::size_t i = 0; i < row.affinity.size(); ++i) {
      affinity[topo.affinity_columns[i]] = row.affinity[i];
    }
    rows.push_back({{"device", row.device}, {"links", links}, {"affinity", affinity}});
  }
  Json legend = Json::object();
  for (const auto& [label, meaning] : topo.legend) {
    legend[label] = meaning;
  }
  Json nic_legend = Json::object();
  for (const auto& [nic, name] : topo.nic_legend) {
    nic_legend[nic] = name;
  }
  return {{"format", "nvidia-smi-topo"},
          {"devices", topo.devices},
          {"affinity_columns", topo.affinity_columns},
          {"truncated", topo.truncated},
          {"rows", rows},
          {"legend", legend},
          {"nic_legend", nic_legend}};
}

Json to_json(const parse::Ibdev2netdevOutput& output) {
  Json ports = Json::array();
  for (const parse::Ibdev2netdevPort& p : output.ports) {
    Json entry = {{"device", p.device},
                  {"port", p.port},
                  {"netdev", p.netdev},
                  {"netdev_state", p.netdev_up ? "Up" : "Down"}};
    if (p.details) {
      entry["pci_address"] = p.details->pci_address;
      entry["ca_type"] = p.details->ca_type;
      entry["part"] = p.details->part;
      entry["description"] = p.details->description;
      entry["firmware"] = p.details->firmware;
      entry["port_state"] = p.details->port_state;
    }
    ports.push_back(entry);
  }
  return {{"format", "ibdev2netdev"}, {"ports", ports}};
}

Json to_json(const parse::IbstatOutput& output) {
  Json cas = Json::array();
  for (const parse::IbstatCa& ca : output.cas) {
    Json ports = Json::array();
    for (const parse::IbstatPort& p : ca.ports) {
      ports.push_back({{"port", p.number},
                       {"state", p.state},
                       {"physical_state", p.physical_state},
                       {"rate_gbps", p.rate_gbps},
                       {"base_lid", p.base_lid},
                       {"lmc", p.lmc},
                       {"sm_lid", p.sm_lid},
                       {"capability_mask", p.capability_mask},
                       {"port_guid", p.port_guid},
                       {"link_layer", p.link_layer}});
    }
    cas.push_back({{"ca", ca.name},
                   {"ca_type", ca.ca_type},
                   {"port_count", ca.port_count},
                   {"firmware", ca.firmware},
                   {"hardware_version", ca.hardware_version},
                   {"node_guid", ca.node_guid},
                   {"system_image_guid", ca.system_image_guid},
                   {"ports", ports}});
  }
  return {{"format", "ibstat"}, {"cas", cas}};
}

Json to_json(const std::optional<parse::PcieLinkReading>& link) {
  return link ? Json{{"speed_GTps", link->speed_gts}, {"width", link->width}} : Json(nullptr);
}

Json to_json(const parse::LspciOutput& output) {
  Json functions = Json::array();
  for (const parse::LspciFunction& f : output.functions) {
    functions.push_back({{"address", f.address},
                         {"class", f.class_name},
                         {"description", f.description},
                         {"numa_node", or_null(f.numa_node)},
                         {"link_capable", to_json(f.capable)},
                         {"link_trained", to_json(f.trained)}});
  }
  return {{"format", "lspci"}, {"functions", functions}};
}

// ---- CSV: a header line, then one line per table row ----------------------------------------

struct Csv {
  CsvRow header;
  std::vector<CsvRow> rows;
};

Csv to_csv(const parse::PerftestOutput& output) {
  Csv csv{{"test", "kind", "device", "size_bytes", "iterations", "bw_unit", "bw_peak", "bw_average",
           "bw_peak_Gbps", "bw_average_Gbps", "msg_rate_Mpps", "t_min_us", "t_max_us",
           "t_typical_us", "t_avg_us", "t_stdev_us", "p99_us", "p99_9_us"},
          {}};
  for (const parse::PerftestRun& run : output.runs) {
    for (const parse::PerftestBandwidthRow& r : run.bw_rows) {
      csv.rows.push_back(
          {run.title, parse::to_string(run.kind), run.device, fmt::format("{}", r.size_bytes),
           fmt::format("{}", r.iterations), parse::to_string(run.bw_unit),
           fmt::format("{}", r.bw_peak), fmt::format("{}", r.bw_average),
           fmt::format("{}", parse::to_bandwidth(r.bw_peak, run.bw_unit).in_gbps()),
           fmt::format("{}", parse::to_bandwidth(r.bw_average, run.bw_unit).in_gbps()),
           fmt::format("{}", r.msg_rate_Mpps), "", "", "", "", "", "", ""});
    }
    for (const parse::PerftestLatencyRow& r : run.lat_rows) {
      csv.rows.push_back(
          {run.title, parse::to_string(run.kind), run.device, fmt::format("{}", r.size_bytes),
           fmt::format("{}", r.iterations), "", "", "", "", "", "", fmt::format("{}", r.t_min_us),
           fmt::format("{}", r.t_max_us), fmt::format("{}", r.t_typical_us), csv_cell(r.t_avg_us),
           csv_cell(r.t_stdev_us), csv_cell(r.p99_us), csv_cell(r.p99_9_us)});
    }
  }
  return csv;
}

Csv to_csv(const parse::NcclTestsOutput& output) {
  Csv csv{{"op", "ranks", "size_bytes", "count", "type", "redop", "root", "time_us", "algbw_GBps",
           "busbw_GBps", "wrong", "max_error", "in_place_time_us", "in_place_algbw_GBps",
           "in_place_busbw_GBps", "in_place_wrong", "in_place_max_error"},
          {}};
  for (const parse::NcclTestsRun& run : output.runs) {
    for (const parse::NcclTestsRow& r : run.rows) {
      const parse::NcclTestsResult& o = r.out_of_place;
      const parse::NcclTestsResult& i = r.in_place;
      csv.rows.push_back({run.op, run.ranks() > 0 ? fmt::format("{}", run.ranks()) : "",
                          fmt::format("{}", r.size_bytes), fmt::format("{}", r.count), r.type,
                          r.redop, csv_cell(r.root), fmt::format("{}", o.time_us),
                          fmt::format("{}", o.algbw_GBps), fmt::format("{}", o.busbw_GBps),
                          csv_cell(o.wrong), csv_cell(o.max_error), fmt::format("{}", i.time_us),
                          fmt::format("{}", i.algbw_GBps), fmt::format("{}", i.busbw_GBps),
                          csv_cell(i.wrong), csv_cell(i.max_error)});
    }
  }
  return csv;
}

Csv to_csv(const parse::NvidiaSmiTopo& topo) {
  Csv csv;
  csv.header.push_back("device");
  csv.header.insert(csv.header.end(), topo.devices.begin(), topo.devices.end());
  csv.header.insert(csv.header.end(), topo.affinity_columns.begin(), topo.affinity_columns.end());
  for (const parse::TopoRow& row : topo.rows) {
    CsvRow line{row.device};
    for (const parse::TopoLink& link : row.links) {
      line.push_back(parse::to_string(link));
    }
    line.insert(line.end(), row.affinity.begin(), row.affinity.end());
    line.resize(csv.header.size());
    csv.rows.push_back(std::move(line));
  }
  return csv;
}

Csv to_csv(const parse::Ibdev2netdevOutput& output) {
  Csv csv{{"device", "port", "netdev", "netdev_state", "pci_address", "ca_type", "part", "firmware",
           "port_state"},
          {}};
  for (const parse::Ibdev2netdevPort& p : output.ports) {
    const parse::Ibdev2netdevDetails d = p.details.value_or(parse::Ibdev2netdevDetails{});
    csv.rows.push_back({p.device, fmt::format("{}", p.port), p.netdev, p.netdev_up ? "Up" : "Down",
                        d.pci_address, d.ca_type, d.part, d.firmware, d.port_state});
  }
  return csv;
}

Csv to_csv(const parse::IbstatOutput& output) {
  Csv csv{{"ca", "ca_type", "firmware", "port", "state", "physical_state", "rate_gbps",
           "link_layer", "base_lid", "sm_lid", "port_guid"},
          {}};
  for (const parse::IbstatCa& ca : output.cas) {
    for (const parse::IbstatPort& p : ca.ports) {
      csv.rows.push_back({ca.name, ca.ca_type, ca.firmware, fmt::format("{}", p.number), p.state,
                          p.physical_state, fmt::format("{}", p.rate_gbps), p.link_layer,
                          fmt::format("{}", p.base_lid), fmt::format("{}", p.sm_lid), p.port_guid});
    }
  }
  return csv;
}

Csv to_csv(const parse::LspciOutput& output) {
  Csv csv{{"address", "class", "description", "numa_node", "cap_speed_GTps", "cap_width",
           "speed_GTps", "width"},
          {}};
  const auto speed = [](const std::optional<parse::PcieLinkReading>& link) {
    return link ? fmt::format("{}", link->speed_gts) : std::string();
  };
  const auto width = [](const std::optional<parse::PcieLinkReading>& link) {
    return link ? fmt::format("{}", link->width) : std::string();
  };
  for (const parse::LspciFunction& f : output.functions) {
    csv.rows.push_back({f.address, f.class_name, f.description, csv_cell(f.numa_node),
                        speed(f.capable), width(f.capable), speed(f.trained), width(f.trained)});
  }
  return csv;
}

// CPU lists hold commas: csv_row quotes them.
void print_csv(std::ostream& out, const Csv& csv) {
  out << csv_row(csv.header);
  for (const CsvRow& row : csv.rows) {
    out << csv_row(row);
  }
}

// ---- warnings ---------------------------------------------------------------------------------

void warn_truncated(const std::string& file, int line, const std::string& what) {
  std::fflush(stdout);
  fmt::print(stderr, "railsim: warning: {}:{}: {}\n", file, line, what);
}

// Perftest tests and nccl-tests runs alike carry `truncated` and the `line` they start at.
template <class Run>
void warn_of_runs(const std::string& file, const std::vector<Run>& runs, const char* what) {
  for (const Run& run : runs) {
    if (run.truncated) {
      warn_truncated(file, run.line, what);
    }
  }
}

void warn_if_truncated(const std::string& file, const parse::ToolOutput& output) {
  std::visit(Overloaded{
                 [&](const parse::PerftestOutput& o) {
                   warn_of_runs(file, o.runs,
                                "the table of this test ends before its closing line; it may be "
                                "incomplete");
                 },
                 [&](const parse::NcclTestsOutput& o) {
                   warn_of_runs(file, o.runs,
                                "the table of this run ends before '# Avg bus bandwidth'; it may "
                                "be incomplete");
                 },
                 [&](const parse::NvidiaSmiTopo& topo) {
                   if (topo.truncated) {
                     warn_truncated(file, topo.rows.back().line,
                                    fmt::format("the matrix ends after {} of its {} rows",
                                                topo.rows.size(), topo.devices.size()));
                   }
                 },
                 [](const auto&) {},
             },
             output);
}

struct ParseOptions {
  std::string path;
  std::optional<parse::ToolFormat> tool;  // --as; absent: recognised from the content
  OutputFormat format = OutputFormat::kJson;
  bool strict = false;  // an implausible reading is an error, not a warning
};

// nullopt after --help.
std::optional<ParseOptions> parse_options(const std::vector<std::string>& args, std::ostream& out) {
  ParseOptions o;
  std::string as;
  std::string format = "json";
  po::options_description options(
      "railsim parse FILE [--as perftest|nccl-tests|nvidia-smi-topo|ibdev2netdev|ibstat|lspci] "
      "[--format json|csv] [--strict]");
  options.add_options()("file", po::value(&o.path)->required(), "the tool's output, as saved")(
      "as", po::value(&as), "the tool that wrote it; default: recognised from the content")(
      "format", po::value(&format)->default_value("json"), "json or csv");
  add_strict_option(options, o.strict);
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map vm;
  if (!parse_command_line(args, options, positional,
                          "Reads a real tool's output (perftest, nccl-tests, nvidia-smi topo -m, "
                          "ibdev2netdev, ibstat, lspci -vv) and prints its tables.",
                          out, vm)) {
    return std::nullopt;
  }
  o.format = parse_format(format, kFormats);
  if (!as.empty()) {
    try {
      o.tool = parse::tool_format_named(as);
    } catch (const sim::InputError& error) {
      throw sim::InputError(std::string("--as: ") + error.what());
    }
  }
  return o;
}

int run(const ParseOptions& o, std::ostream& out) {
  const parse::TextInput input = parse::TextInput::from_file(o.path);
  parse::ToolOutput output = parse::parse_tool_output(input, o.tool);
  const std::vector<std::string> implausible =
      parse::implausible_warnings(o.path, parse::remove_implausible(output), o.strict);
  if (o.format == OutputFormat::kJson) {
    // The parsers keep UTF-8 only (TextInput); replacing is the backstop for any other way in.
    out << std::visit([](const auto& tool) { return to_json(tool); }, output)
               .dump(2, ' ', false, Json::error_handler_t::replace)
        << "\n";
  } else {
    print_csv(out, std::visit([](const auto& tool) { return to_csv(tool); }, output));
  }
  for (const std::string& warning : parse::non_utf8_warnings(input)) {
    std::fflush(stdout);
    fmt::print(stderr, "railsim: warning: {}\n", warning);
  }
  warn_if_truncated(o.path, output);
  for (const std::string& warning : implausible) {
    fmt::print(stderr, "railsim: warning: {}\n", warning);
  }
  return 0;
}

}  // namespace

int run_parse(const std::vector<std::string>& args, std::ostream& out) {
  return parse_and_run(args, out, parse_options, run);
}

}  // namespace railsim::tools
