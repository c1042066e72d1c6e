// File: tools/cli_support/output_folder.cpp
#include "tools/cli_support/output_folder.hpp"

#include "sim/input_error.hpp"
#include "tools/cli_support/output_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <optional>

namespace railsim::tools {
namespace {

namespace fs = std::filesystem;

// The folder as a rename must see it: without a trailing '/', and a link to a folder followed
// (exchanging the link itself would turn it into a folder).
fs::path real_folder(const std::string& folder) {
  fs::path path = fs::path(folder).lexically_normal();
  if (!path.has_filename()) {
    path = path.parent_path();
  }
  std::error_code error;
  if (fs::is_symlink(path, error)) {
    fs::path resolved = fs::canonical(path, error);
    if (!error) {
      return resolved;
    }
  }
  return path;
}

[[noreturn]] void fail(const char* option, const std::string& folder, const std::string& why) {
  throw sim::InputError(fmt::format("{}: cannot write {}: {}", option, folder, why));
}

// The entries of the existing `target` that are not in the new set, to be carried across; a
// folder or a special file among them is refused (railsim replaces the folder as a whole).
std::vector<fs::path> carried_entries(const fs::path& target,
                                      const std::vector<std::string>& names,
                                      const char* option,
                                      const std::string& folder) {
  std::error_code error;
  if (fs::equivalent(target, fs::current_path(), error)) {
    fail(option, folder,
         "it is the current directory, and railsim replaces an output folder as a whole; name "
         "a folder inside it");
  }
  std::vector<fs::path> carried;
  for (const fs::directory_entry& entry : fs::directory_iterator(target, error)) {
    if (!entry.is_symlink() && !entry.is_regular_file()) {
      fail(option, folder,
           fmt::format("it holds {}, which is not a file; railsim replaces an output folder as "
                       "a whole, so it may hold files only: name a new folder",
                       entry.path().string()));
    }
    const std::string name = entry.path().filename().string();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      carried.push_back(entry.path());
    }
  }
  if (error) {
    fail(option, folder, error.message());
  }
  std::sort(carried.begin(), carried.end());
  return carried;
}

// What an existing `target` holds to be carried across, or nullopt when there is none yet; a
// target that is not a folder is refused.
std::optional<std::vector<fs::path>> existing_entries(const fs::path& target,
                                                      const std::vector<std::string>& names,
                                                      const char* option,
                                                      const std::string& folder) {
  std::error_code error;
  if (!fs::exists(target, error)) {
    return std::nullopt;
  }
  if (!fs::is_directory(target, error)) {
    fail(option, folder, "it exists and is not a folder");
  }
  return carried_entries(target, names, option, folder);
}

// A hard link keeps the user's file itself; a file system without them gets a copy.
bool carry(const fs::path& from, const fs::path& to) {
  std::error_code error;
  if (fs::is_symlink(from, error)) {
    fs::copy_symlink(from, to, error);
    return !error;
  }
  fs::create_hard_link(from, to, error);
  if (error) {
    error.clear();
    fs::copy_file(from, to, error);
  }
  return !error;
}

// Exchanges the two folders in one step where the file system can; elsewhere moves the old one
// aside first, so that for a moment there is no folder but never a mix. Afterwards `staging`
// names the old folder.
bool exchange(const fs::path& staging, const fs::path& target) {
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
    return true;
  }
  if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
    return false;
  }
  const fs::path aside = temporary_beside(target);
  if (::rename(target.c_str(), aside.c_str()) != 0) {
    return false;
  }
  if (::rename(staging.c_str(), target.c_str()) != 0) {
    const int saved = errno;
    ::rename(aside.c_str(), target.c_str());
    errno = saved;
    return false;
  }
  return ::rename(aside.c_str(), staging.c_str()) == 0;
}

std::vector<std::string> names_of(const std::vector<OutputEntry>& files) {
  std::vector<std::string> names;
  names.reserve(files.size());
  for (const auto& [name, text] : files) {
    names.push_back(name);
  }
  return names;
}

}  // namespace

void check_output_folder(const std::string& folder,
                         const std::vector<std::string>& names,
                         const char* option,
                         const std::vector<std::string>& inputs) {
  if (folder.empty()) {
    return;
  }
  const fs::path target = real_folder(folder);
  for (const std::string& name : names) {
    check_not_an_input((target / name).string(), option, inputs);
  }
  static_cast<void>(existing_entries(target, names, option, folder));
  std::error_code error;
  // Creates nothing that stays: a failed run leaves no empty folders. The probe goes where the
  // first folder will be created, the nearest of the target's folders that exists.
  fs::path at = target;
  while (!fs::exists(folder_of(at), error) && folder_of(at) != at) {
    at = folder_of(at);
  }
  if (!fs::is_directory(folder_of(at), error)) {
    fail(option, folder, fmt::format("{} is not a folder", folder_of(at).string()));
  }
  errno = 0;
  const TemporaryBeside probe(at, TemporaryBeside::Kind::kFolder);
  if (!probe.path()) {
    fail(option, folder, fmt::format("cannot create a folder beside it: {}", last_error()));
  }
}

void publish_output_folder(const std::string& folder,
                           const std::vector<OutputEntry>& files,
                           const char* option,
                           const StepHook& on_step) {
  const auto step = [&on_step] {
    if (on_step) {
      on_step();
    }
  };
  const fs::path target = real_folder(folder);
  std::error_code error;
  fs::create_directories(folder_of(target), error);
  if (error) {
    fail(option, folder, error.message());
  }
  const std::optional<std::vector<fs::path>> existing =
      existing_entries(target, names_of(files), option, folder);
  const bool replacing = existing.has_value();
  const std::vector<fs::path> carried = existing.value_or(std::vector<fs::path>{});
  errno = 0;
  TemporaryBeside staging(target, TemporaryBeside::Kind::kFolder);
  if (!staging.path()) {
    fail(option, folder, last_error());
  }
  const fs::path& dir = *staging.path();
  for (const auto& [name, contents] : files) {
    // The lambda takes a reference: the clang that runs clang-tidy cannot capture a binding.
    const std::string& text = contents;
    errno = 0;
    if (!write_synced(dir / name, [&text](std::ostream& out) {
          out.write(text.data(), static_cast<std::streamsize>(text.size()));
        })) {
      fail(option, folder, last_error());
    }
    step();
  }
  for (const fs::path& entry : carried) {
    errno = 0;
    if (!carry(entry, dir / entry.filename())) {
      fail(option, folder, fmt::format("cannot keep {}: {}", entry.string(), last_error()));
    }
  }
  if (replacing) {
    fs::permissions(dir, fs::status(target, error).permissions(), error);
  }
  errno = 0;
  if (!sync_to_disk(dir, O_RDONLY | O_DIRECTORY)) {
    fail(option, folder, last_error());
  }
  step();
  errno = 0;
  if (replacing ? !exchange(dir, target) : ::rename(dir.c_str(), target.c_str()) != 0) {
    fail(option, folder, last_error());
  }
  if (!replacing) {
    staging.release();
  }
  step();
  // Best effort, as for a single file: the new folder is in place whatever these say.
  sync_to_disk(folder_of(target), O_RDONLY | O_DIRECTORY);
}

}  // namespace railsim::tools
