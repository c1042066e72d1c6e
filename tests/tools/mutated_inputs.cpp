// File: tests/tools/mutated_inputs.cpp
// `railsim_mutated_inputs RAILSIM REPO OUT [SHARED]`: every shipped scenario (scenarios/) and every
// log (tests/data, and SHARED's measurement logs when given), mutated the ways an unlucky user's
// input comes (truncated, bytes flipped or not UTF-8, nested 300,000 deep, numbers huge, zero,
// negative or nan, sizes of one byte, rows repeated), fed to each command that reads it. Exit
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
#include <random>
#include <regex>
#include <set>
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
  std::string flipped = text;
  flipped[at(text.size() - 1)] ^= 0x20;
  out.push_back({"case-flipped", flipped});
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

struct Run {
  std::vector<std::string> args;
  std::string input;  // the mutated file, for the report
};

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
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s RAILSIM REPO OUT [SHARED_MEASUREMENTS]\n", argv[0]);
    return 2;
  }
  const std::string railsim = argv[1];
  const fs::path repo = argv[2];
  const fs::path out = argv[3];
  fs::remove_all(out);
  fs::create_directories(out);

  std::vector<fs::path> scenarios;
  std::vector<fs::path> logs;
  for (const auto& entry : fs::recursive_directory_iterator(repo / "scenarios")) {
    if (entry.path().extension() == ".json") {
      scenarios.push_back(entry.path());
    }
  }
  std::vector<fs::path> log_folders = {repo / "tests" / "data"};
  if (argc > 4 && fs::is_directory(argv[4])) {
    log_folders.emplace_back(argv[4]);
  }
  // tests/data holds copies of most shared logs: each file name is taken once.
  std::set<std::string> names;
  for (const fs::path& folder : log_folders) {
    for (const auto& entry : fs::directory_iterator(folder)) {
      if (entry.path().extension() == ".txt" && names.insert(entry.path().filename()).second) {
        logs.push_back(entry.path());
      }
    }
  }
  std::sort(scenarios.begin(), scenarios.end());
  std::sort(logs.begin(), logs.end());

  std::vector<Run> runs;
  const auto mutated_file = [&](const fs::path& source, const std::string& mutation,
                                const std::string& text) {
    const fs::path path =
        out / (source.stem().string() + "." + mutation + source.extension().string());
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  };
  for (const fs::path& source : scenarios) {
    std::mt19937 rng(
        static_cast<std::uint32_t>(std::hash<std::string>{}(source.filename().string())));
    const bool sweep = source.parent_path().filename() == "sweeps" ||
                       read_file(source).find("\"parameters\": [") != std::string::npos;
    for (const Mutation& m : json_mutations(read_file(source), rng)) {
      const std::string file = mutated_file(source, m.name, m.text);
      if (sweep) {
        // Every parameter is read and every point's document built; only the first point runs
        // (the shipped rail-design sweep takes minutes whole).
        runs.push_back({{railsim, "sweep", file, "--jobs", "1", "--shard", "1/1000000"}, file});
        continue;
      }
      runs.push_back({{railsim, "run", file}, file});
      runs.push_back({{railsim, "step", file}, file});
      runs.push_back({{railsim, "topo", "--system", file}, file});
    }
  }
  for (const fs::path& source : logs) {
    std::mt19937 rng(
        static_cast<std::uint32_t>(std::hash<std::string>{}(source.filename().string())));
    const bool nccl = source.filename().string().starts_with("nccl-tests");
    for (const Mutation& m : text_mutations(read_file(source), rng)) {
      const std::string file = mutated_file(source, m.name, m.text);
      runs.push_back({{railsim, "parse", file, "--format", "json"}, file});
      runs.push_back({{railsim, "parse", file, "--format", "csv"}, file});
      if (nccl) {
        const std::string manifest = file + ".manifest.json";
        std::ofstream(manifest)
            << R"({"nodes": ["node0", "node1"], "nccl": [{"label": "mutated", "file": ")"
            << fs::absolute(file).string() << "\"}]}\n";
        runs.push_back(
            {{railsim, "check", manifest, "--system", "dgx-h100", "--format", "json"}, file});
      }
    }
  }

  const Clock::time_point start = Clock::now();
  std::vector<std::string> bugs;
  std::size_t next = 0;
  std::vector<std::thread> workers;
  std::mutex lock;
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
        const Outcome outcome = execute(runs[i].args);
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
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("%zu runs of %zu scenarios and %zu logs, mutated, in %.1f s\n", runs.size(),
              scenarios.size(), logs.size(), seconds);
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
