// File: tools/cli_support/durable_steps.cpp
#include "tools/cli_support/durable_steps.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace railsim::tools {

std::filesystem::path temporary_beside(const std::filesystem::path& target) {
  static std::atomic<int> counter{0};
  std::filesystem::path name = target;
  name.replace_filename(
      fmt::format(".{}.{}-{}.tmp", target.filename().string(), ::getpid(), counter.fetch_add(1)));
  return name;
}

TemporaryBeside::TemporaryBeside(const std::filesystem::path& target, Kind kind) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::filesystem::path name = temporary_beside(target);
    int created = -1;
    if (kind == Kind::kFolder) {
      created = ::mkdir(name.c_str(), 0777);
    } else if (const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
               fd >= 0) {
      created = ::close(fd);
    }
    if (created == 0) {
      path_ = std::move(name);
      return;
    }
    if (errno != EEXIST) {
      return;
    }
  }
}

TemporaryBeside::~TemporaryBeside() {
  if (path_) {
    std::error_code ignored;
    std::filesystem::remove_all(*path_, ignored);
  }
}

bool sync_to_disk(const std::filesystem::path& path, int flags) {
  // fsync flushes the file whatever mode the descriptor was opened in.
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  const bool synced = ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return synced;
}

bool write_synced(const std::filesystem::path& path,
                  const std::function<void(std::ostream&)>& write) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) {
      return false;
    }
    write(out);
    out.close();
    if (!out) {
      return false;
    }
  }
  return sync_to_disk(path, O_RDONLY);
}

std::filesystem::path folder_of(const std::filesystem::path& target) {
  return target.parent_path().empty() ? std::filesystem::path(".") : target.parent_path();
}

std::string last_error() { return errno != 0 ? std::strerror(errno) : "the write failed"; }

}  // namespace railsim::tools
