// File: tools/cli_support/output_file.cpp
#include "tools/cli_support/output_file.hpp"

#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unistd.h>

namespace railsim::tools {
namespace {

namespace fs = std::filesystem;

// The errno of a failed step, as words.
std::string last_error() { return errno != 0 ? std::strerror(errno) : "the write failed"; }

// Flushes what was written to `path` (a file or a folder) to the disk; false with errno on
// failure. fsync flushes the file whatever mode the descriptor was opened in.
bool sync_to_disk(const fs::path& path, int flags) {
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

// A temporary file beside the target, created with O_EXCL (so the umask gives it the
// permissions any new file gets) and removed again unless it was renamed over the target.
class Temporary {
 public:
  explicit Temporary(const fs::path& target) {
    static std::atomic<int> counter{0};
    for (int attempt = 0; attempt < 100; ++attempt) {
      fs::path name = target;
      name.replace_filename(fmt::format(".{}.{}-{}.tmp", target.filename().string(), ::getpid(),
                                        counter.fetch_add(1)));
      const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd >= 0) {
        ::close(fd);
        path_ = std::move(name);
        return;
      }
      if (errno != EEXIST) {
        return;
      }
    }
  }

  ~Temporary() {
    if (path_) {
      std::error_code ignored;
      fs::remove(*path_, ignored);
    }
  }

  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;

  const std::optional<fs::path>& path() const { return path_; }

  // Renames the temporary over `target`, then syncs the folder so that the rename is on disk
  // too. That sync is best effort: some file systems refuse it, and the new file is in place.
  bool publish(const fs::path& target) {
    if (::rename(path_->c_str(), target.c_str()) != 0) {
      return false;
    }
    path_.reset();
    const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    sync_to_disk(folder, O_RDONLY | O_DIRECTORY);
    return true;
  }

 private:
  std::optional<fs::path> path_;
};

}  // namespace

void write_output_file(const std::string& path,
                       const std::function<void(std::ostream&)>& write,
                       const char* option) {
  const fs::path target(path);
  errno = 0;
  Temporary temporary(target);
  const bool written = [&] {
    if (!temporary.path()) {
      return false;
    }
    {
      std::ofstream out(*temporary.path(), std::ios::binary | std::ios::trunc);
      if (!out) {
        return false;
      }
      write(out);
      out.close();
      if (!out) {
        return false;
      }
    }
    return sync_to_disk(*temporary.path(), O_RDONLY) && temporary.publish(target);
  }();
  if (!written) {
    throw sim::InputError(fmt::format("{}: cannot write {}: {}", option, path, last_error()));
  }
}

void write_output_file(const std::string& path, const std::string& text, const char* option) {
  write_output_file(
      path,
      [&text](std::ostream& out) {
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
      },
      option);
}

}  // namespace railsim::tools
