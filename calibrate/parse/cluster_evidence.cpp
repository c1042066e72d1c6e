// File: calibrate/parse/cluster_evidence.cpp
// Both layouts end in the same list of (kind, node or pair, file, place) entries; one reader
// loads them, so a manifest and a directory fail alike on the same bad file.
#include "calibrate/parse/cluster_evidence.hpp"

#include "calibrate/parse/plausibility.hpp"
#include "calibrate/parse/tool_output.hpp"
#include "models/scenario/json_reader.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace railsim::calibrate::parse {
namespace {

namespace fs = std::filesystem;
using models::scenario::JsonValue;

// Where an input was named: a manifest's value, or (directory layout) the file itself.
struct Place {
  std::optional<JsonValue> value;

  [[noreturn]] void fail(const std::string& file, const std::string& what) const {
    if (value) {
      throw value->error(fmt::format("{}: {}", file, what));
    }
    throw sim::InputError(fmt::format("{}: {}", file, what));
  }
};

// What reading a file adds to: the warnings, and whether an implausible reading is an error.
struct Notes {
  std::vector<std::string>& warnings;
  bool strict = false;
};

// The file parsed as `format`; another tool's output is an error naming both tools. Lines with
// bytes that are not UTF-8 and implausible readings (taken out) add to the warnings.
ToolOutput load(const std::string& file, ToolFormat format, const Place& place, Notes notes) {
  if (!fs::is_regular_file(file)) {
    place.fail(file, "no such file");
  }
  const TextInput input = TextInput::from_file(file);
  if (input.blank()) {
    place.fail(file, fmt::format("the file is empty, expected {} output", to_string(format)));
  }
  const std::optional<ToolFormat> found = detect_format(input);
  if (found && *found != format) {
    place.fail(file, fmt::format("this is {} output, expected {} output", to_string(*found),
                                 to_string(format)));
  }
  ToolOutput output = parse_tool_output(input, format);
  for (std::string& warning : non_utf8_warnings(input)) {
    notes.warnings.push_back(std::move(warning));
  }
  for (std::string& warning :
       implausible_warnings(file, remove_implausible(output), notes.strict)) {
    notes.warnings.push_back(std::move(warning));
  }
  return output;
}

template <class Output>
Evidence<Output> load_as(const std::string& file,
                         ToolFormat format,
                         const Place& place,
                         Notes notes) {
  return {file, std::get<Output>(load(file, format, place, notes))};
}

// {"write_bw", "mlx5_0"}: the test a perftest log holds and the NIC it ran on; every run of one
// log must be the same test on the same NIC.
std::pair<std::string, std::string> perftest_test(const Evidence<PerftestOutput>& log,
                                                  const Place& place) {
  std::set<std::pair<std::string, std::string>> tests;
  for (const PerftestRun& run : log.output.runs) {
    tests.emplace(fmt::format("{}_{}", to_string(run.verb), to_string(run.kind)), run.device);
  }
  if (tests.size() != 1) {
    std::vector<std::string> names;
    names.reserve(tests.size());
    for (const auto& [test, device] : tests) {
      names.push_back(fmt::format("{} on {}", test, device));
    }
    place.fail(log.file, fmt::format("expected one perftest test on one NIC per file, got {}",
                                     fmt::join(names, ", ")));
  }
  return *tests.begin();
}

// The hosts of the rank lines in rank order, and each host's device indices (the same on every
// host, or the shape is not one the model runs: then none).
void shape_from_log(NcclEvidence& run) {
  for (const NcclTestsRun& r : run.log.output.runs) {
    std::vector<std::string> hosts;
    std::map<std::string, std::vector<int>> devices;
    for (const NcclTestsDevice& d : r.devices) {
      if (std::find(hosts.begin(), hosts.end(), d.host) == hosts.end()) {
        hosts.push_back(d.host);
      }
      devices[d.host].push_back(d.device);
    }
    if (hosts.empty()) {
      continue;
    }
    run.nodes = hosts;
    run.gpus = devices[hosts.front()];
    std::sort(run.gpus.begin(), run.gpus.end());
    return;
  }
}

class Reader {
 public:
  Reader(std::string source, bool strict) : strict_(strict) {
    evidence_.source = std::move(source);
  }

  NodeEvidence& node(const std::string& name) {
    for (NodeEvidence& n : evidence_.nodes) {
      if (n.name == name) {
        return n;
      }
    }
    evidence_.nodes.push_back({name, {}, {}, {}, {}});
    return evidence_.nodes.back();
  }

  void node_log(const std::string& kind,
                const std::string& name,
                const std::string& file,
                const Place& place) {
    NodeEvidence& n = node(name);
    if (kind == "topo") {
      n.topo = load_as<NvidiaSmiTopo>(file, ToolFormat::kNvidiaSmiTopo, place, notes());
    } else if (kind == "ibstat") {
      n.ibstat = load_as<IbstatOutput>(file, ToolFormat::kIbstat, place, notes());
    } else if (kind == "lspci") {
      n.lspci = load_as<LspciOutput>(file, ToolFormat::kLspci, place, notes());
    } else {
      n.ibdev2netdev = load_as<Ibdev2netdevOutput>(file, ToolFormat::kIbdev2netdev, place, notes());
    }
  }

  // `test` and `device` are what the file's name says it holds ("" where it says nothing).
  void pair_log(const std::string& a,
                const std::string& b,
                const std::string& test,
                const std::string& device,
                const std::string& file,
                const Place& place) {
    if (a == b) {
      place.fail(file, fmt::format("a perftest pair needs two nodes, got {} twice", a));
    }
    Evidence<PerftestOutput> log =
        load_as<PerftestOutput>(file, ToolFormat::kPerftest, place, notes());
    const auto [held, nic] = perftest_test(log, place);
    if (!test.empty() && held != test) {
      place.fail(file, fmt::format("the name says {}, the log holds {}", test, held));
    }
    if (!device.empty() && nic != device) {
      place.fail(file, fmt::format("the name says {}, the log ran on {}", device, nic));
    }
    for (const PairEvidence& p : evidence_.pairs) {
      const bool same_pair = (p.node_a == a && p.node_b == b) || (p.node_a == b && p.node_b == a);
      if (same_pair && p.test == held && p.device == nic) {
        place.fail(file, fmt::format("a second {} log on {} for {} and {} (the first is {})", held,
                                     nic, a, b, p.log.file));
      }
    }
    node(a);
    node(b);
    evidence_.pairs.push_back({a, b, held, nic, std::move(log)});
  }

  NcclEvidence& nccl_log(const std::string& label, const std::string& file, const Place& place) {
    NcclEvidence run;
    run.label = label;
    run.log = load_as<NcclTestsOutput>(file, ToolFormat::kNcclTests, place, notes());
    shape_from_log(run);
    for (const std::string& host : run.nodes) {
      node(host);
    }
    evidence_.nccl.push_back(std::move(run));
    return evidence_.nccl.back();
  }

  ClusterEvidence take() { return std::move(evidence_); }

  ClusterEvidence& evidence() { return evidence_; }

 private:
  Notes notes() { return {evidence_.warnings, strict_}; }

  ClusterEvidence evidence_;
  bool strict_ = false;
};

constexpr const char* kNodeKinds[] = {"topo", "ibstat", "ibdev2netdev", "lspci"};

std::string relative_to(const fs::path& dir, const std::string& file) {
  const fs::path p(file);
  return p.is_absolute() ? file : (dir / p).lexically_normal().string();
}

void read_manifest_nccl(const JsonValue& entry,
                        const fs::path& dir,
                        Reader& reader,
                        const std::set<std::string>& listed) {
  entry.expect_keys({"label", "file", "nodes", "gpus", "env"});
  const std::string file = relative_to(dir, entry.at("file").as_string());
  const std::string label =
      entry.contains("label") ? entry.at("label").as_string() : fs::path(file).stem().string();
  NcclEvidence& run = reader.nccl_log(label, file, Place{entry.at("file")});
  if (const auto nodes = entry.find("nodes")) {
    std::vector<std::string> named;
    for (const JsonValue& n : nodes->elements()) {
      if (listed.count(n.as_string()) == 0) {
        throw n.error(fmt::format("node '{}' is not in /nodes", n.as_string()));
      }
      named.push_back(n.as_string());
    }
    if (!run.nodes.empty() && run.nodes != named) {
      throw nodes->error(fmt::format("{}: the log's ranks are on {}, the manifest says {}", file,
                                     fmt::join(run.nodes, ", "), fmt::join(named, ", ")));
    }
    run.nodes = std::move(named);
  }
  if (const auto gpus = entry.find("gpus")) {
    run.gpus.clear();
    for (const JsonValue& g : gpus->elements()) {
      run.gpus.push_back(static_cast<int>(g.as_integer(0, 1023)));
    }
  }
  if (const auto env = entry.find("env")) {
    for (const auto& [name, value] : env->members()) {
      run.env.push_back({name, value.as_string()});
    }
  }
  for (const std::string& host : run.nodes) {
    if (listed.count(host) == 0) {
      throw entry.at("file").error(
          fmt::format("{}: the log has ranks on '{}', which is not in /nodes", file, host));
    }
  }
}

ClusterEvidence read_manifest(const std::string& path, bool strict) {
  const models::scenario::JsonDocument doc = models::scenario::load_json_file(path);
  const JsonValue root = doc.root();
  root.expect_keys(
      {"cluster", "nodes", "topo", "ibstat", "ibdev2netdev", "lspci", "perftest", "nccl"});
  const fs::path dir = fs::path(path).parent_path();
  Reader reader(path, strict);
  std::set<std::string> listed;
  for (const JsonValue& n : root.at("nodes").elements()) {
    const std::string name = n.as_string();
    if (name.empty() || !listed.insert(name).second) {
      throw n.error(name.empty() ? "expected a node name" : "node '" + name + "' listed twice");
    }
    reader.node(name);
  }
  const auto known = [&](const JsonValue& where, const std::string& name) {
    if (listed.count(name) == 0) {
      throw where.error(fmt::format("node '{}' is not in /nodes", name));
    }
  };
  for (const char* kind : kNodeKinds) {
    if (const auto logs = root.find(kind)) {
      for (const auto& [name, file] : logs->members()) {
        known(file, name);
        reader.node_log(kind, name, relative_to(dir, file.as_string()), Place{file});
      }
    }
  }
  if (const auto pairs = root.find("perftest")) {
    for (const JsonValue& entry : pairs->elements()) {
      entry.expect_keys({"nodes", "file"});
      const JsonValue nodes = entry.at("nodes");
      if (nodes.size() != 2) {
        throw nodes.error(fmt::format("expected the two nodes of the pair, got {}", nodes.size()));
      }
      for (const JsonValue& n : nodes.elements()) {
        known(n, n.as_string());
      }
      reader.pair_log(nodes.at(0).as_string(), nodes.at(1).as_string(), "", "",
                      relative_to(dir, entry.at("file").as_string()), Place{entry.at("file")});
    }
  }
  if (const auto runs = root.find("nccl")) {
    for (const JsonValue& entry : runs->elements()) {
      read_manifest_nccl(entry, dir, reader, listed);
    }
  }
  // A node with no log at all is a typo or a collection that failed: either way the check
  // would pass it without evidence.
  const ClusterEvidence& e = reader.evidence();
  const std::vector<JsonValue> nodes = root.at("nodes").elements();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NodeEvidence& n = e.nodes[i];
    const bool in_pair = std::any_of(e.pairs.begin(), e.pairs.end(), [&](const PairEvidence& p) {
      return p.node_a == n.name || p.node_b == n.name;
    });
    const bool in_run = std::any_of(e.nccl.begin(), e.nccl.end(), [&](const NcclEvidence& r) {
      return std::find(r.nodes.begin(), r.nodes.end(), n.name) != r.nodes.end();
    });
    if (!n.topo && !n.ibstat && !n.ibdev2netdev && !n.lspci && !in_pair && !in_run) {
      throw nodes[i].error(fmt::format("node '{}' has no logs in the manifest", n.name));
    }
  }
  return reader.take();
}

// The .txt files of DIR/kind, by name.
std::vector<fs::path> logs_in(const fs::path& dir) {
  std::vector<fs::path> files;
  if (fs::is_directory(dir)) {
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".txt") {
        files.push_back(entry.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

ClusterEvidence read_directory(const std::string& path, bool strict) {
  const fs::path dir(path);
  if (!fs::is_directory(dir)) {
    throw sim::InputError(path +
                          ": no such directory (expected a manifest .json or a directory "
                          "of topo/, ibstat/, ibdev2netdev/, lspci/, perftest/, nccl/)");
  }
  Reader reader(path, strict);
  for (const char* kind : kNodeKinds) {
    for (const fs::path& file : logs_in(dir / kind)) {
      reader.node_log(kind, file.stem().string(), file.string(), Place{});
    }
  }
  for (const fs::path& file : logs_in(dir / "perftest")) {
    // <a>__<b>__<test>[__<device>]
    std::vector<std::string> parts;
    const std::string stem = file.stem().string();
    for (std::size_t at = 0;;) {
      const std::size_t next = stem.find("__", at);
      parts.push_back(stem.substr(at, next == std::string::npos ? next : next - at));
      if (next == std::string::npos) {
        break;
      }
      at = next + 2;
    }
    const bool named =
        (parts.size() == 3 || parts.size() == 4) &&
        std::none_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); });
    if (!named) {
      Place{}.fail(file.string(), "expected a name <nodeA>__<nodeB>__<test>[__<device>].txt");
    }
    reader.pair_log(parts[0], parts[1], parts[2], parts.size() == 4 ? parts[3] : "", file.string(),
                    Place{});
  }
  for (const fs::path& file : logs_in(dir / "nccl")) {
    reader.nccl_log(file.stem().string(), file.string(), Place{});
  }
  ClusterEvidence evidence = reader.take();
  if (evidence.nodes.empty() && evidence.nccl.empty()) {
    throw sim::InputError(path +
                          ": no logs found (expected .txt files under topo/, ibstat/, "
                          "ibdev2netdev/, lspci/, perftest/ or nccl/)");
  }
  std::sort(evidence.nodes.begin(), evidence.nodes.end(),
            [](const NodeEvidence& a, const NodeEvidence& b) { return a.name < b.name; });
  return evidence;
}

}  // namespace

std::optional<std::string> NcclEvidence::env_value(const std::string& name) const {
  if (!log.output.runs.empty()) {
    for (const NcclSetting& s : log.output.runs.front().environment) {
      if (s.name == name) {
        return s.value;
      }
    }
  }
  for (const auto& [key, value] : env) {
    if (key == name) {
      return value;
    }
  }
  return std::nullopt;
}

const NodeEvidence* ClusterEvidence::node(const std::string& name) const {
  const std::optional<int> i = node_index(name);
  return i ? &nodes[static_cast<std::size_t>(*i)] : nullptr;
}

std::vector<std::string> ClusterEvidence::files() const {
  std::vector<std::string> out = {source};
  const auto add = [&out](const auto& evidence) {
    if (evidence) {
      out.push_back(evidence->file);
    }
  };
  for (const NodeEvidence& node : nodes) {
    add(node.topo);
    add(node.ibstat);
    add(node.ibdev2netdev);
    add(node.lspci);
  }
  for (const PairEvidence& pair : pairs) {
    out.push_back(pair.log.file);
  }
  for (const NcclEvidence& run : nccl) {
    out.push_back(run.log.file);
  }
  return out;
}

std::optional<int> ClusterEvidence::node_index(const std::string& name) const {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].name == name) {
      return static_cast<int>(i);
    }
  }
  return std::nullopt;
}

ClusterEvidence read_cluster_evidence(const std::string& path, bool strict) {
  return path.ends_with(".json") ? read_manifest(path, strict) : read_directory(path, strict);
}

}  // namespace railsim::calibrate::parse
