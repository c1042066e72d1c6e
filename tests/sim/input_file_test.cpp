// File: tests/sim/input_file_test.cpp
// Input files read whole, regular files only and at most kMaxInputFileBytes: /dev/zero, a FIFO
// with no writer (which must not block), a folder and an oversized file are each refused in
// words, and a file is read byte for byte, NUL bytes included.
#include "sim/input_file.hpp"

#include "tests/scratch_folder.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>

namespace railsim::sim {
namespace {

namespace fs = std::filesystem;

class InputFile : public test::ScratchFolder {
 protected:
  // The problem reading `path` gives ("" when it reads).
  static std::string problem_of(const std::string& path) {
    std::string problem;
    const std::string text = read_input_file(path, problem);
    EXPECT_TRUE(problem.empty() || text.empty());
    return problem;
  }
};

TEST_F(InputFile, ReadsEveryByte) {
  const std::string bytes("line 1\n\0binary\r\nend", 19);
  std::ofstream(dir_ / "log.txt", std::ios::binary) << bytes;
  std::string problem;
  EXPECT_EQ(read_input_file((dir_ / "log.txt").string(), problem), bytes);
  EXPECT_EQ(problem, "");
}

TEST_F(InputFile, DevicesFifosAndFoldersAreRefused) {
  EXPECT_EQ(problem_of("/dev/zero"),
            "not a regular file but a character device; save the output to a file and give that");
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(problem_of(fifo.string()),
            "not a regular file but a FIFO or pipe; save the output to a file and give that");
  EXPECT_EQ(problem_of(dir_.string()),
            "not a regular file but a folder; save the output to a file and give that");
  EXPECT_EQ(problem_of((dir_ / "absent").string()), "No such file or directory");
}

TEST_F(InputFile, AFileBeyondTheCapIsRefusedUnread) {
  // Sparse: a size past the cap costs no disk.
  const fs::path big = dir_ / "big.txt";
  std::ofstream(big).close();
  fs::resize_file(big, static_cast<std::uintmax_t>(kMaxInputFileBytes) + 1);
  EXPECT_EQ(problem_of(big.string()), "at least 257 MiB, more than the 256 MiB an input may be");
}

}  // namespace
}  // namespace railsim::sim
