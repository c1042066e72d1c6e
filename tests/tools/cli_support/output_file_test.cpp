// File: tests/tools/cli_support/output_file_test.cpp
// Output files all or nothing: a write that fails or is cut short half-way leaves the old file
// as it was and no temporary beside it; a user's own NAME.tmp is never touched.
#include "tools/cli_support/output_file.hpp"

#include "tests/scratch_folder.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

namespace railsim::tools {
namespace {

namespace fs = std::filesystem;

class OutputFile : public test::ScratchFolder {
 protected:
  fs::path file(const std::string& name) const { return dir_ / name; }

  std::set<std::string> names() const {
    std::set<std::string> found;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      found.insert(entry.path().filename().string());
    }
    return found;
  }

  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  static void put(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
};

TEST_F(OutputFile, ReplacesTheOldFileWithTheWholeNewOne) {
  put(file("out.json"), "old");
  write_output_file(file("out.json").string(), std::string("new text"), "-o");
  EXPECT_EQ(read(file("out.json")), "new text");
  EXPECT_EQ(names(), std::set<std::string>{"out.json"});
}

TEST_F(OutputFile, AWriterThatFailsHalfWayLeavesTheOldFile) {
  put(file("trace.json"), "the previous trace");
  const auto half_then_fail = [](std::ostream& out) {
    out << R"({"traceEvents":[)";
    throw std::runtime_error("killed half-way");
  };
  EXPECT_THROW(write_output_file(file("trace.json").string(), half_then_fail, "--trace"),
               std::runtime_error);
  EXPECT_EQ(read(file("trace.json")), "the previous trace");
  EXPECT_EQ(names(), std::set<std::string>{"trace.json"});
}

TEST_F(OutputFile, AUsersOwnTmpFileIsLeftAlone) {
  put(file("report.txt.tmp"), "the user's notes");
  write_output_file(file("report.txt").string(), std::string("report"), "-o");
  EXPECT_EQ(read(file("report.txt.tmp")), "the user's notes");
  EXPECT_EQ(read(file("report.txt")), "report");
  EXPECT_EQ(names(), (std::set<std::string>{"report.txt", "report.txt.tmp"}));
}

TEST_F(OutputFile, AFailedRenameNamesTheOptionAndTheFileAndLeavesNoTemporary) {
  // A folder where the file should go: the finished temporary cannot be renamed over it.
  fs::create_directory(file("index.html"));
  try {
    write_output_file(file("index.html").string(), std::string("<html>"), "--report");
    FAIL() << "expected sim::InputError";
  } catch (const sim::InputError& error) {
    const std::string what = error.what();
    EXPECT_EQ(what.rfind("--report: cannot write " + file("index.html").string() + ": ", 0), 0u)
        << what;
  }
  EXPECT_EQ(names(), std::set<std::string>{"index.html"});
  EXPECT_TRUE(fs::is_directory(file("index.html")));
}

TEST_F(OutputFile, AMissingFolderIsAnError) {
  EXPECT_THROW(write_output_file(file("absent/out.csv").string(), std::string("x"), "--out"),
               sim::InputError);
  EXPECT_TRUE(names().empty());
}

}  // namespace
}  // namespace railsim::tools
