// File: tools/cli_support/output_file.cpp
#include "tools/cli_support/output_file.hpp"

#include "sim/input_error.hpp"
#include "tools/cli_support/durable_steps.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <fcntl.h>
#include <filesystem>

namespace railsim::tools {
namespace {

namespace fs = std::filesystem;

// Renames the temporary over `target`, then syncs the folder so that the rename is on disk too.
// That sync is best effort: some file systems refuse it, and the new file is in place.
bool publish(TemporaryBeside& temporary, const fs::path& target) {
  if (::rename(temporary.path()->c_str(), target.c_str()) != 0) {
    return false;
  }
  temporary.release();
  sync_to_disk(folder_of(target), O_RDONLY | O_DIRECTORY);
  return true;
}

}  // namespace

void write_output_file(const std::string& path,
                       const std::function<void(std::ostream&)>& write,
                       const char* option) {
  const fs::path target(path);
  errno = 0;
  TemporaryBeside temporary(target, TemporaryBeside::Kind::kFile);
  const bool written =
      temporary.path() && write_synced(*temporary.path(), write) && publish(temporary, target);
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
