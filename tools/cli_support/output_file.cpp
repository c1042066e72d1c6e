// File: tools/cli_support/output_file.cpp
#include "tools/cli_support/output_file.hpp"

#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace railsim::tools {

void write_output_file(const std::string& path, const std::string& text, const char* option) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (out) {
      out << text;
      out.flush();
      if (out) {
        out.close();
        if (std::rename(temporary.c_str(), path.c_str()) == 0) {
          return;
        }
      }
    }
  }
  const std::string reason = std::strerror(errno);
  std::remove(temporary.c_str());
  throw sim::InputError(fmt::format("{}: cannot write {}: {}", option, path, reason));
}

}  // namespace railsim::tools
