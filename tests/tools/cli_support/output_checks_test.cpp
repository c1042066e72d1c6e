// File: tests/tools/cli_support/output_checks_test.cpp
// Where an output goes, checked before any work: never over an input of the same run, however
// its path is spelt; never onto a folder or into a folder that is absent; and checking leaves
// nothing behind.
#include "tools/cli_support/output_checks.hpp"

#include "tests/input_error_text.hpp"
#include "tests/scratch_folder.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace railsim::tools {
namespace {

namespace fs = std::filesystem;

class OutputChecks : public test::ScratchFolder {
 protected:
  void SetUp() override {
    ScratchFolder::SetUp();
    std::ofstream(dir_ / "scenario.json") << "{}";
  }
};

TEST_F(OutputChecks, TheSameFileUnderAnotherNameIsRefusedNamingBoth) {
  const std::string input = (dir_ / "scenario.json").string();
  fs::create_hard_link(dir_ / "scenario.json", dir_ / "linked.json");
  fs::create_symlink(dir_ / "scenario.json", dir_ / "alias.json");
  for (const fs::path& output :
       {dir_ / "." / "scenario.json", dir_ / "linked.json", dir_ / "alias.json"}) {
    EXPECT_EQ(test::input_error_text([&] {
                check_output_file(output.string(), "--trace", {"", input});
              }),
              "--trace " + output.string() + ": the same file as " + input +
                  ", an input of this run; choose another path");
  }
}

TEST_F(OutputChecks, AFolderOrAnAbsentFolderIsRefused) {
  EXPECT_EQ(test::input_error_text([&] { check_output_file(dir_.string(), "-o", {}); }),
            "-o: cannot write " + dir_.string() + ": it is a folder");
  const std::string absent = (dir_ / "absent" / "out.json").string();
  EXPECT_EQ(test::input_error_text([&] { check_output_file(absent, "-o", {}); }),
            "-o: cannot write " + absent + ": No such file or directory");
}

TEST_F(OutputChecks, AWritablePlacePassesAndNothingIsLeft) {
  check_output_file((dir_ / "trace.json").string(), "--trace", {(dir_ / "scenario.json").string()});
  check_output_file("", "--trace", {});
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) {
    ++entries;
  }
  EXPECT_EQ(entries, 1U);
}

}  // namespace
}  // namespace railsim::tools
