// File: tests/scratch_folder.hpp
// A fixture for tests of files on disk: an empty folder of its own under the temporary directory,
// named after the suite and the test (so tests running at once never share one), removed after.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace railsim::test {

class ScratchFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("railsim-" + std::string(test->test_suite_name()) + "." + test->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }

  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

}  // namespace railsim::test
