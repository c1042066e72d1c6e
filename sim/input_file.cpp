// File: sim/input_file.cpp
#include "sim/input_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace railsim::sim {
namespace {

std::string_view kind_of(mode_t mode) {
  if (S_ISDIR(mode)) {
    return "a folder";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO or pipe";
  }
  if (S_ISCHR(mode)) {
    return "a character device";
  }
  if (S_ISBLK(mode)) {
    return "a block device";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  return "not a file";
}

std::string mib_text(std::int64_t bytes) {
  return std::to_string((bytes + (std::int64_t{1} << 20) - 1) >> 20) + " MiB";
}

// Closes the descriptor on every way out.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}

  ~Descriptor() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }

  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;

  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string read_input_file(const std::string& path, std::string& problem) {
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one.
  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    problem = std::strerror(errno);
    return {};
  }

  struct stat status {};

  if (::fstat(fd.get(), &status) != 0) {
    problem = std::strerror(errno);
    return {};
  }
  if (!S_ISREG(status.st_mode)) {
    problem = std::string("not a regular file but ") + std::string(kind_of(status.st_mode)) +
              "; save the output to a file and give that";
    return {};
  }
  const auto too_large = [&problem](std::int64_t bytes) {
    problem = "at least " + mib_text(bytes) + ", more than the " + mib_text(kMaxInputFileBytes) +
              " an input may be";
  };
  if (status.st_size > kMaxInputFileBytes) {
    too_large(status.st_size);
    return {};
  }
  std::string text;
  text.resize(static_cast<std::size_t>(status.st_size));
  std::size_t filled = 0;
  // Until end of file, which may come later than the size said if the file is still growing.
  for (;;) {
    if (filled == text.size()) {
      if (static_cast<std::int64_t>(text.size()) > kMaxInputFileBytes) {
        too_large(static_cast<std::int64_t>(text.size()));
        return {};
      }
      text.resize(text.size() + (std::size_t{1} << 16));
    }
    const ssize_t count = ::read(fd.get(), text.data() + filled, text.size() - filled);
    if (count < 0) {
      if (errno == EINTR) {
        continue;
      }
      problem = std::strerror(errno);
      return {};
    }
    if (count == 0) {
      break;
    }
    filled += static_cast<std::size_t>(count);
  }
  text.resize(filled);
  return text;
}

}  // namespace railsim::sim
