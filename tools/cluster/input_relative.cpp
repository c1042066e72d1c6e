// File: tools/cluster/input_relative.cpp
#include "tools/cluster/input_relative.hpp"

#include <filesystem>
#include <system_error>

namespace railsim::tools {

std::string input_folder(const std::string& source) {
  std::error_code error;
  // As typed, less trailing slashes: the logs' paths were joined onto it.
  std::string folder = std::filesystem::is_directory(source, error)
                           ? source
                           : std::filesystem::path(source).parent_path().string();
  while (folder.size() > 1 && folder.back() == '/') {
    folder.pop_back();
  }
  return folder;
}

std::string relative_to(const std::string& text, const std::string& folder) {
  std::string prefix = folder;
  if (prefix.empty() || prefix == ".") {
    return text;
  }
  if (prefix.back() != '/') {
    prefix += '/';
  }
  return text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text;
}

}  // namespace railsim::tools
