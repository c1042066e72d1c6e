// File: tests/tools/mutated_inputs.cpp
// `railsim_mutated_inputs RAILSIM REPO OUT`: every shipped scenario (scenarios/) and every shared
// measurement log (tests/data), mutated the ways an unlucky user's input comes (truncated, bytes
// flipped or not UTF-8, nested 300,000 deep, numbers huge, zero, negative or nan, sizes of one
// byte, rows repeated), fed to each command that reads it. Exit
// status 0, 1 (check's failed checks) or 2 (bad input) are answers; an internal error (3), a
// signal or a run past kTimeout is a bug: it is listed with the command and the mutated file,
// kept in OUT, and the program exits 1. The mutations are fixed (seeded by the file's name), so a
// failure reproduces.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <numeric>
#include <random>
#include <regex>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Long enough for a shipped scenario that a mutation left valid (the slowest takes ~15 s on a
// loaded 2-core machine), far shorter than a hang.
constexpr std::chrono::seconds kTimeout{60};
constexpr int kParallel = 2;

struct Mutation {
  std::string name;
  std::string text;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every number token outside strings replaced by `by`.
std::string replace_json_numbers(const std::string& text, const std::string& by) {
  std::string out;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    if ((c >= '0' && c <= '9') || c == '-') {
      std::size_t end = i;
      while (end < text.size() &&
             std::string_view("0123456789+-.eE").find(text[end]) != std::string_view::npos) {
        ++end;
      }
      out += by;
      i = end - 1;
      continue;
    }
    out += c;
  }
  return out;
}

// The mutations of a JSON file.
std::vector<Mutation> json_mutations(const std::string& text, std::mt19937& rng) {
  std::vector<Mutation> out;
  const auto at = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n)(rng);
  };
  out.push_back({"truncated", text.substr(0, text.size() / 2)});
  // A key's first letter in the other case: a misspelt key, wherever the draw lands. (A flip
  // inside a name or a description would leave the file as valid as it was, and the run as long.)
  std::string flipped = text;
  if (const std::size_t key = flipped.find("\":", at(text.size() - 1)); key != std::string::npos) {
    if (const std::size_t open = flipped.rfind('"', key - 1); open != std::string::npos) {
      flipped[open + 1] ^= 0x20;
    }
  }
  out.push_back({"key-case-flipped", flipped});
  std::string control = text;
  control[at(text.size() - 1)] = '\x01';
  out.push_back({"control-byte", control});
  std::string latin1 = text;
  if (const std::size_t quote = latin1.find('"', at(text.size() - 1)); quote != std::string::npos) {
    latin1.insert(quote + 1, "\xE9");
  }
  out.push_back({"not-utf8", latin1});
  if (const std::size_t colon = text.find(':'); colon != std::string::npos) {
    constexpr std::size_t kDepth = 300'000;
    out.push_back({"deep-array", text.substr(0, colon + 1) + std::string(kDepth, '[') +
                                     std::string(kDepth, ']') +
                                     ", \"x\":" + text.substr(colon + 1)});
    std::string deep_object;
    for (std::size_t i = 0; i < kDepth; ++i) {
      deep_object += "{\"a\":";
    }
    out.push_back({"deep-object", text.substr(0, colon + 1) + deep_object + "1" +
                                      std::string(kDepth, '}') +
                                      ", \"x\":" + text.substr(colon + 1)});
  }
  for (const char* number : {"1e308", "9223372036854775807", "1e15", "-1", "0", "NaN"}) {
    out.push_back({std::string("numbers-") + number, replace_json_numbers(text, number)});
  }
  // Sizes, durations and rates of one unit ("25M" -> "1", "120ms" -> "1ns").
  out.push_back({"one-byte-sizes",
                 std::regex_replace(text, std::regex(R"re("[0-9.]+[KMGT]i?B?")re"), "\"1\"")});
  out.push_back(
      {"huge-sizes", std::regex_replace(text, std::regex(R"re("[0-9.]+[KMGT]i?B?")re"), "\"8E\"")});
  out.push_back({"tiny-durations",
                 std::regex_replace(text, std::regex(R"re("[0-9.]+(ms|us|ns|s)")re"), "\"1ps\"")});
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) {
    out += line;
    out += '\n';
  }
  return out;
}

// The mutations of a tool's log.
std::vector<Mutation> text_mutations(const std::string& text, std::mt19937& rng) {
  std::vector<Mutation> out;
  std::vector<std::string> lines = lines_of(text);
  if (lines.empty()) {
    return out;
  }
  const auto at = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n)(rng);
  };
  out.push_back({"truncated-third", text.substr(0, text.size() / 3)});
  out.push_back({"truncated-two-thirds", text.substr(0, text.size() * 2 / 3)});
  for (int k = 0; k < 2; ++k) {
    std::string flipped = text;
    for (int i = 0; i < 4; ++i) {
      flipped[at(text.size() - 1)] ^= static_cast<char>(1 << at(7));
    }
    out.push_back({"bits-flipped-" + std::to_string(k), flipped});
  }
  // A Latin-1 byte in every line: whatever field a parser keeps holds one.
  std::vector<std::string> latin1 = lines;
  for (std::string& line : latin1) {
    // One char, by iterator: inserting a string trips g++ 12's -Wrestrict (bug 105651).
    line.insert(line.begin() + static_cast<std::ptrdiff_t>(line.size() / 2), '\xE9');
  }
  out.push_back({"not-utf8", joined(latin1)});
  // The first field of each table row (a size) as nan, inf or empty.
  const std::regex row(R"(^(\s*)[0-9]+(\s))");
  for (const char* value : {"nan", "-inf", ""}) {
    std::vector<std::string> rows = lines;
    for (std::string& line : rows) {
      line = std::regex_replace(line, row, std::string("$1") + value + "$2",
                                std::regex_constants::format_first_only);
    }
    out.push_back({std::string("first-field-") + (*value ? value : "empty"), joined(rows)});
  }
  std::vector<std::string> huge = lines;
  for (std::string& line : huge) {
    line = std::regex_replace(line, std::regex("[0-9]+"), "99999999999999999999");
  }
  out.push_back({"numbers-huge", joined(huge)});
  std::vector<std::string> repeated = lines;
  const std::size_t copy = at(lines.size() - 1);
  repeated.insert(repeated.begin() + static_cast<std::ptrdiff_t>(copy), lines[copy]);
  out.push_back({"line-repeated", joined(repeated)});
  std::vector<std::string> doubled = lines;
  doubled.insert(doubled.end(), lines.begin(), lines.end());
  out.push_back({"file-twice", joined(doubled)});
  return out;
}

using Args = std::vector<std::string>;

struct Run {
  Args args;
  std::string input;  // the mutated file, for the report
};

// The commands that read a scenario file, each on the mutated `file`: its workload run, its
// step, its system drawn, swept, compared against and used as the design of a check and a
// calibration. A sweep file goes to `sweep` alone; every point's document is built and only the
// first point runs (the shipped rail-design sweep takes minutes whole).
std::vector<Args> scenario_commands(const std::string& file, const fs::path& repo, bool sweep) {
  if (sweep) {
    return {{"sweep", file, "--jobs", "1", "--shard", "1/1000000"}};
  }
  const std::string two_nodes = (repo / "scenarios" / "dgx-h100-2n.json").string();
  const std::string manifest =
      (repo / "tests" / "scenarios" / "check" / "issue232" / "manifest.json").string();
  const std::string smoke =
      (repo / "tests" / "data" /
       "nccl-tests_allreduce+sendrecv_h100_2node-1gpn_xxrjun-cluster01-smoke.txt")
          .string();
  return {{"run", file},
          {"step", file},
          {"topo", "--system", file},
          {"collective", "--system", file, "--op", "all_reduce", "-b", "1M", "-e", "1M"},
          {"compare", two_nodes, file},
          {"check", manifest, "--system", file, "--format", "json"},
          {"calibrate", "--nccl-tests", smoke, "--system", file, "--check"}};
}

// A cluster (docs/acceptance.md) whose one log, of kind `kind`, is `log`: a folder with the log
// in nccl/ for nccl-tests, whose nodes come from the log's rank lines; else a manifest of one
// node, node0.
std::string cluster_of(const std::string& kind, const std::string& log) {
  if (kind == "nccl-tests") {
    const fs::path folder = log + ".cluster";
    fs::create_directories(folder / "nccl");
    fs::copy_file(log, folder / "nccl" / "log.txt", fs::copy_options::overwrite_existing);
    return folder.string();
  }
  const std::string manifest = log + ".manifest.json";
  std::ofstream(manifest) << R"({"nodes": ["node0"], ")" << kind << R"(": {"node0": ")" << log
                          << "\"}}\n";
  return manifest;
}

// The commands that read a tool's log, each on the mutated `file` (an absolute path): parse,
// as JSON and CSV; check, through a manifest written beside it; calibrate, for the logs it fits
// to; topo --import-nvidia-smi, for the logs it imports.
std::vector<Args> log_commands(const std::string& file,
                               const std::string& stem,
                               const fs::path& repo) {
  std::vector<Args> out = {{"parse", file, "--format", "json"}, {"parse", file, "--format", "csv"}};
  std::string kind;
  for (const char* prefix : {"nccl-tests", "perftest", "topo", "ibstat", "ibdev2netdev", "lspci"}) {
    if (stem.starts_with(prefix)) {
      kind = prefix;
    }
  }
  if (kind == "nccl-tests" || kind == "perftest") {
    out.push_back({"calibrate", "--" + kind, file, "--system", "dgx-h100", "--check"});
  }
  // check reads one perftest per log, and the shared perftest logs hold several.
  if (!kind.empty() && kind != "perftest") {
    out.push_back({"check", cluster_of(kind, file), "--system", "dgx-h100", "--format", "json"});
  }
  // diagnose reads as check does, then ranks a few hundred faulty designs: on one small log.
  if (stem.ends_with("-smoke")) {
    out.push_back({"diagnose", cluster_of(kind, file), "--system", "dgx-h100", "--jobs", "1",
                   "--format", "json"});
  }
  if (kind == "topo") {
    out.push_back({"topo", "--import-nvidia-smi", file});
  }
  if (kind == "ibdev2netdev") {
    const std::string topo =
        (repo / "tests" / "data" / "topo_dgx-a100_nvidia-smi-topo-m_12nic.txt").string();
    out.push_back({"topo", "--import-nvidia-smi", topo, "--ibdev2netdev", file});
  }
  return out;
}

struct Outcome {
  bool bug = false;
  std::string what;
};

// Runs `args` with stdin, stdout and stderr on /dev/null; kills it past kTimeout.
Outcome execute(const std::vector<std::string>& args) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (const int fd : {0, 1, 2}) {
    posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
  }
  std::vector<char*> argv;
  for (const std::string& arg : args) {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    return {true, "cannot start it"};
  }
  const Clock::time_point deadline = Clock::now() + kTimeout;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return {true, "still running after " + std::to_string(kTimeout.count()) + " s"};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFSIGNALED(status)) {
    return {true, "killed by signal " + std::to_string(WTERMSIG(status))};
  }
  const int code = WEXITSTATUS(status);
  if (code != 0 && code != 1 && code != 2) {
    return {true, "exit status " + std::to_string(code)};
  }
  return {};
}

std::string command_line(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& arg : args) {
    out += (out.empty() ? "" : " ") + arg;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s RAILSIM REPO OUT\n", argv[0]);
    return 2;
  }
  const std::string railsim = argv[1];
  const fs::path repo = fs::absolute(argv[2]);
  const fs::path out = fs::absolute(argv[3]);
  fs::remove_all(out);
  fs::create_directories(out);

  std::vector<fs::path> scenarios;
  for (const auto& entry : fs::recursive_directory_iterator(repo / "scenarios")) {
    if (entry.path().extension() == ".json") {
      scenarios.push_back(entry.path());
    }
  }
  // tests/data holds the shared measurement logs (its README gives each one's source).
  std::vector<fs::path> logs;
  for (const auto& entry : fs::directory_iterator(repo / "tests" / "data")) {
    if (entry.path().extension() == ".txt") {
      logs.push_back(entry.path());
    }
  }
  std::sort(scenarios.begin(), scenarios.end());
  std::sort(logs.begin(), logs.end());

  std::vector<Run> runs;
  const auto add = [&](const std::vector<Args>& commands, const std::string& file) {
    for (const Args& command : commands) {
      Args args = {railsim};
      args.insert(args.end(), command.begin(), command.end());
      runs.push_back({std::move(args), file});
    }
  };
  const auto mutated_file = [&](const fs::path& source, const std::string& mutation,
                                const std::string& text) {
    const fs::path path =
        out / (source.stem().string() + "." + mutation + source.extension().string());
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  };
  const auto seeded = [](const fs::path& source) {
    return std::mt19937(
        static_cast<std::uint32_t>(std::hash<std::string>{}(source.filename().string())));
  };
  for (const fs::path& source : scenarios) {
    std::mt19937 rng = seeded(source);
    const std::string text = read_file(source);
    const bool sweep = text.find("\"parameters\": [") != std::string::npos;
    for (const Mutation& m : json_mutations(text, rng)) {
      if (m.text == text) {
        continue;  // a mutation with nothing to change, such as durations in a file of none
      }
      const std::string file = mutated_file(source, m.name, m.text);
      add(scenario_commands(file, repo, sweep), file);
    }
  }
  for (const fs::path& source : logs) {
    std::mt19937 rng = seeded(source);
    const std::string text = read_file(source);
    for (const Mutation& m : text_mutations(text, rng)) {
      if (m.text == text) {
        continue;
      }
      const std::string file = mutated_file(source, m.name, m.text);
      add(log_commands(file, source.stem().string(), repo), file);
    }
  }

  const Clock::time_point start = Clock::now();
  std::vector<std::string> bugs;
  std::size_t next = 0;
  std::vector<std::thread> workers;
  std::mutex lock;
  std::vector<double> seconds(runs.size());  // each run's, written by its worker only
  for (int w = 0; w < kParallel; ++w) {
    workers.emplace_back([&] {
      for (;;) {
        std::size_t i = 0;
        {
          const std::lock_guard<std::mutex> guard(lock);
          if (next == runs.size()) {
            return;
          }
          i = next++;
        }
        const Clock::time_point began = Clock::now();
        const Outcome outcome = execute(runs[i].args);
        seconds[i] = std::chrono::duration<double>(Clock::now() - began).count();
        if (outcome.bug) {
          const std::lock_guard<std::mutex> guard(lock);
          bugs.push_back(outcome.what + ": " + command_line(runs[i].args));
        }
      }
    });
  }
  for (std::thread& worker : workers) {
    worker.join();
  }
  std::printf("%zu runs of %zu scenarios and %zu logs, mutated, in %.1f s; the slowest:\n",
              runs.size(), scenarios.size(), logs.size(),
              std::chrono::duration<double>(Clock::now() - start).count());
  // The slowest runs, so that a test grown past its time limit says where the time went.
  std::vector<std::size_t> order(runs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::size_t shown = std::min<std::size_t>(5, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                    [&](std::size_t a, std::size_t b) { return seconds[a] > seconds[b]; });
  for (std::size_t k = 0; k < shown; ++k) {
    std::printf("  %.1f s  %s\n", seconds[order[k]], command_line(runs[order[k]].args).c_str());
  }
  std::sort(bugs.begin(), bugs.end());
  for (const std::string& bug : bugs) {
    std::printf("BUG %s\n", bug.c_str());
  }
  if (!bugs.empty()) {
    std::printf("%zu of %zu runs crashed, hung or failed internally; the inputs are in %s\n",
                bugs.size(), runs.size(), out.string().c_str());
    return 1;
  }
  fs::remove_all(out);
  return 0;
}
