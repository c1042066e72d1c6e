// File: tests/tools/probes/unique_id_file_test.cpp
// The unique-id file: what rank 0 writes, the others read back byte for byte; the file is
// never seen half-written; a file for another number of ranks, or none at all, is a failure.
#include "tools/probes/unique_id_file.hpp"

#include "tools/probes/probe_run.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace railsim::tools::probes {
namespace {

using std::chrono::milliseconds;

UniqueIdBytes sample_id() {
  UniqueIdBytes id{};
  for (std::size_t i = 0; i < id.size(); ++i) {
    id[i] = static_cast<std::byte>(i * 37 + 5);
  }
  return id;
}

class UniqueIdFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("railsim-id-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }

  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path() const { return (dir_ / "nccl.id").string(); }

  std::filesystem::path dir_;
};

TEST_F(UniqueIdFile, WrittenThenReadBack) {
  write_unique_id_file(path(), sample_id(), 16);
  EXPECT_FALSE(std::filesystem::exists(path() + ".tmp"));
  EXPECT_EQ(wait_for_unique_id_file(path(), 16, milliseconds(100), milliseconds(10)), sample_id());
}

TEST_F(UniqueIdFile, ReaderWaitsForTheWriter) {
  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds(200));
    write_unique_id_file(path(), sample_id(), 2);
  });
  EXPECT_EQ(wait_for_unique_id_file(path(), 2, milliseconds(5000), milliseconds(10)), sample_id());
  writer.join();
}

TEST_F(UniqueIdFile, NoFileIsAFailureAfterTheTimeout) {
  try {
    wait_for_unique_id_file(path(), 2, milliseconds(50), milliseconds(10));
    FAIL();
  } catch (const ProbeFailure& error) {
    EXPECT_NE(std::string(error.what()).find("did not appear within 0.05 s"), std::string::npos);
  }
}

TEST_F(UniqueIdFile, AFileForAnotherRunSizeIsRefused) {
  write_unique_id_file(path(), sample_id(), 8);
  try {
    wait_for_unique_id_file(path(), 16, milliseconds(50), milliseconds(10));
    FAIL();
  } catch (const ProbeFailure& error) {
    EXPECT_NE(std::string(error.what())
                  .find("written for a run with nranks=8, this one has "
                        "--nranks 16"),
              std::string::npos);
  }
}

TEST(UniqueIdText, DamagedTextIsRefused) {
  const std::string good = encode_unique_id(sample_id(), 4);
  EXPECT_EQ(decode_unique_id(good, 4, "f"), sample_id());
  EXPECT_THROW(decode_unique_id("hello", 4, "f"), ProbeFailure);
  EXPECT_THROW(decode_unique_id(good.substr(0, good.size() - 3), 4, "f"), ProbeFailure);
  std::string upper = good;
  upper[upper.size() - 2] = 'G';
  EXPECT_THROW(decode_unique_id(upper, 4, "f"), ProbeFailure);
}

TEST(UniqueIdFileWrite, UnwritableFolderIsAFailure) {
  EXPECT_THROW(write_unique_id_file("/nonexistent-railsim-folder/id", sample_id(), 2),
               ProbeFailure);
}

}  // namespace
}  // namespace railsim::tools::probes
