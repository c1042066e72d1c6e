// File: tools/cli_support/durable_steps.hpp
// The steps output_file.cpp and output_folder.cpp share to put an output on the disk so that a
// kill or a full disk never leaves a reader part of it: a unique name beside the target for
// the work in progress, and fsync before a rename makes the work visible.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

namespace railsim::tools {

// Called after each step that changes the disk; tests pass one that kills the process there.
using StepHook = std::function<void()>;

// ".NAME.PID-N.tmp" beside `target`, for the N-th temporary this process names: hidden, and
// never the name of a user's own file (NAME.tmp) or another run's temporary.
std::filesystem::path temporary_beside(const std::filesystem::path& target);

// A new file or folder under temporary_beside's name, created exclusively (so the umask gives it
// the permissions anything new gets) and removed with what it holds unless released.
class TemporaryBeside {
 public:
  enum class Kind { kFile, kFolder };

  // path() is empty, with errno set, when nothing could be created.
  TemporaryBeside(const std::filesystem::path& target, Kind kind);
  ~TemporaryBeside();

  TemporaryBeside(const TemporaryBeside&) = delete;
  TemporaryBeside& operator=(const TemporaryBeside&) = delete;

  const std::optional<std::filesystem::path>& path() const { return path_; }

  // It was renamed into place: nothing to remove.
  void release() { path_.reset(); }

 private:
  std::optional<std::filesystem::path> path_;
};

// Flushes what was written to `path` (a file, or a folder's entries with O_DIRECTORY) to the
// disk; false with errno set on failure.
bool sync_to_disk(const std::filesystem::path& path, int flags);

// Writes `path` afresh with what `write` puts out, then flushes it to the disk; false with errno
// set on failure.
bool write_synced(const std::filesystem::path& path,
                  const std::function<void(std::ostream&)>& write);

// The folder that holds `target` ("." for a bare name).
std::filesystem::path folder_of(const std::filesystem::path& target);

// The errno of a failed step as words.
std::string last_error();

}  // namespace railsim::tools
