// File: tools/cli_support/output_checks.cpp
#include "tools/cli_support/output_checks.hpp"

#include "sim/input_error.hpp"
#include "tools/cli_support/durable_steps.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <filesystem>

namespace railsim::tools {

namespace fs = std::filesystem;

void check_not_an_input(const std::string& output,
                        const char* option,
                        const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    // Only two files that exist can be the same one; equivalent() sees through links and
    // spellings ("./S.json", a hard link) by comparing device and inode.
    std::error_code error;
    if (!input.empty() && fs::equivalent(output, input, error) && !error) {
      throw sim::InputError(
          fmt::format("{} {}: the same file as {}, an input of this run; choose another path",
                      option, output, input));
    }
  }
}

void check_output_file(const std::string& path,
                       const char* option,
                       const std::vector<std::string>& inputs) {
  if (path.empty()) {
    return;
  }
  check_not_an_input(path, option, inputs);
  std::error_code error;
  if (fs::is_directory(path, error)) {
    throw sim::InputError(fmt::format("{}: cannot write {}: it is a folder", option, path));
  }
  // What write_output_file will do first: create a temporary beside the target.
  errno = 0;
  const TemporaryBeside probe(path, TemporaryBeside::Kind::kFile);
  if (!probe.path()) {
    throw sim::InputError(fmt::format("{}: cannot write {}: {}", option, path, last_error()));
  }
}

}  // namespace railsim::tools
