// File: tests/tools/cli_support/output_folder_test.cpp
// A set of output files published together: a reader finds the old set or the new one, whole,
// never a mix, even when the process is killed (SIGKILL, no clean-up) after any step; the
// user's own files in the folder stay, the very same files; a folder that holds another folder
// (not a folder of outputs) is refused with nothing changed.
#include "tools/cli_support/output_folder.hpp"

#include "tests/input_error_text.hpp"
#include "tests/scratch_folder.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace railsim::tools {
namespace {

namespace fs = std::filesystem;

using Contents = std::map<std::string, std::string>;  // name -> text

class OutputFolder : public test::ScratchFolder {
 protected:
  // The folder's entries and the texts of its files ("/" for a folder).
  static Contents contents(const fs::path& dir) {
    Contents found;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (entry.is_directory()) {
        found[name] = "/";
        continue;
      }
      std::ifstream in(entry.path(), std::ios::binary);
      found[name] = {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }
    return found;
  }

  static void put(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
};

const std::vector<OutputEntry> kNew = {{"results.csv", "point,time_us\n0,12.5\n"},
                                       {"results.json", R"({"rows": [12.5]})"}};

TEST_F(OutputFolder, CreatesTheFolderAndItsParents) {
  const fs::path dir = dir_ / "a" / "b";
  publish_output_folder(dir.string(), kNew, "--out");
  EXPECT_EQ(contents(dir), (Contents{kNew.begin(), kNew.end()}));
  EXPECT_EQ(contents(dir_ / "a"), (Contents{{"b", "/"}}));  // no temporary left beside it
}

TEST_F(OutputFolder, ReplacesTheSetAndKeepsTheUsersOwnFilesThemselves) {
  const fs::path dir = dir_ / "out";
  fs::create_directory(dir);
  put(dir / "results.csv", "old csv");
  put(dir / "results.json", "old json");
  put(dir / "sweep.json", "the user's sweep");
  const auto inode = [](const fs::path& path) {
    struct stat status {};
    EXPECT_EQ(::stat(path.c_str(), &status), 0);
    return status.st_ino;
  };
  const auto before = inode(dir / "sweep.json");
  publish_output_folder((dir.string() + "/"), kNew, "--out");
  Contents expected(kNew.begin(), kNew.end());
  expected["sweep.json"] = "the user's sweep";
  EXPECT_EQ(contents(dir), expected);
  EXPECT_EQ(inode(dir / "sweep.json"), before);  // a link to the same file, not a copy
  EXPECT_EQ(contents(dir_).size(), 1U);
}

TEST_F(OutputFolder, AFolderInsideIsRefusedAndNothingChanges) {
  const fs::path dir = dir_ / "out";
  fs::create_directories(dir / "shard1");
  put(dir / "results.csv", "old csv");
  for (const auto& call :
       {std::function<void()>(
            [&] { check_output_folder(dir.string(), {"results.csv"}, "--out", {}); }),
        std::function<void()>([&] { publish_output_folder(dir.string(), kNew, "--out"); })}) {
    const std::string message = test::input_error_text(call);
    EXPECT_EQ(message.rfind("--out: cannot write " + dir.string() + ": it holds " +
                                (dir / "shard1").string() + ", which is not a file",
                            0),
              0U)
        << message;
  }
  EXPECT_EQ(contents(dir), (Contents{{"results.csv", "old csv"}, {"shard1", "/"}}));
  EXPECT_EQ(contents(dir_).size(), 1U);
}

TEST_F(OutputFolder, AnOutputThatIsAnInputIsRefusedNamingBoth) {
  const fs::path dir = dir_ / "shard1";
  fs::create_directory(dir);
  put(dir / "results.json", "a shard's results");
  const std::string input = (dir_ / "." / "shard1" / "results.json").string();
  EXPECT_EQ(test::input_error_text([&] {
              check_output_folder(dir.string(), {"results.csv", "results.json"}, "--out", {input});
            }),
            "--out " + (dir / "results.json").string() + ": the same file as " + input +
                ", an input of this run; choose another path");
}

TEST_F(OutputFolder, AFileWhereTheFolderGoesIsRefusedBeforeAnyWork) {
  put(dir_ / "blocker", "x");
  EXPECT_NE(test::input_error_text([&] {
              check_output_folder((dir_ / "blocker").string(), {"index.html"}, "--report", {});
            }).find("it exists and is not a folder"),
            std::string::npos);
  EXPECT_NE(test::input_error_text([&] {
              check_output_folder((dir_ / "blocker" / "report").string(), {"index.html"},
                                  "--report", {});
            }).find((dir_ / "blocker").string() + " is not a folder"),
            std::string::npos);
  // Checking creates nothing.
  check_output_folder((dir_ / "new" / "deep").string(), {"index.html"}, "--report", {});
  EXPECT_EQ(contents(dir_), (Contents{{"blocker", "x"}}));
}

// Publishes kNew into `dir` in a child process that kills itself with SIGKILL right after step
// `kill_at` (1-based) of the publisher; 0 kills nowhere. Returns the child's signal, or 0.
int publish_killed_at(const fs::path& dir, int kill_at) {
  const pid_t child = ::fork();
  if (child == 0) {
    int steps = 0;
    try {
      publish_output_folder(dir.string(), kNew, "--out", [&steps, kill_at] {
        if (++steps == kill_at) {
          std::raise(SIGKILL);
        }
      });
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

TEST_F(OutputFolder, KilledAfterAnyStepTheFolderHoldsTheOldSetOrTheNewOneWhole) {
  const Contents old_set = {
      {"results.csv", "old csv"}, {"results.json", "old json"}, {"sweep.json", "mine"}};
  Contents new_set(kNew.begin(), kNew.end());
  new_set["sweep.json"] = "mine";
  // Two files, the folder synced, the exchange, the old folder removed: four steps before the
  // last, and the step count is where the kill lands, so each of them is tried.
  int killed = 0;
  for (int kill_at = 1; kill_at <= 5; ++kill_at) {
    const fs::path dir = dir_ / ("out" + std::to_string(kill_at));
    fs::create_directory(dir);
    for (const auto& [name, text] : old_set) {
      put(dir / name, text);
    }
    killed += publish_killed_at(dir, kill_at) == SIGKILL ? 1 : 0;
    const Contents found = contents(dir);
    EXPECT_TRUE(found == old_set || found == new_set) << "killed after step " << kill_at;
    // Before the exchange the old set stands; from the exchange on, the new one.
    EXPECT_EQ(found == new_set, kill_at >= 4) << "killed after step " << kill_at;
  }
  EXPECT_EQ(killed, 4);  // step 5 does not exist: that run finished
}

TEST_F(OutputFolder, KilledWhileCreatingTheFolderLeavesNoneOrTheWholeOne) {
  for (int kill_at = 1; kill_at <= 4; ++kill_at) {
    const fs::path dir = dir_ / ("new" + std::to_string(kill_at));
    publish_killed_at(dir, kill_at);
    if (fs::exists(dir)) {
      EXPECT_EQ(contents(dir), (Contents{kNew.begin(), kNew.end()})) << kill_at;
    }
    EXPECT_EQ(fs::exists(dir), kill_at >= 4) << kill_at;
  }
}

TEST_F(OutputFolder, TheCurrentDirectoryIsRefused) {
  const fs::path dir = dir_ / "here";
  fs::create_directory(dir);
  const fs::path was = fs::current_path();
  fs::current_path(dir);
  const std::string message =
      test::input_error_text([] { publish_output_folder(".", kNew, "--out"); });
  fs::current_path(was);
  EXPECT_NE(message.find("it is the current directory"), std::string::npos) << message;
  EXPECT_TRUE(contents(dir).empty());
}

}  // namespace
}  // namespace railsim::tools
