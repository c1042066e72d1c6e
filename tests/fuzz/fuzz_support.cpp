// File: tests/fuzz/fuzz_support.cpp
#include "tests/fuzz/fuzz_support.hpp"

#include "sim/utf8.hpp"
#include "tools/command.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace railsim::fuzz {

std::string write_input(std::string_view text, std::string_view suffix) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("railsim-fuzz-" + std::to_string(getpid()) + std::string(suffix)))
                               .string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  return path;
}

void require_utf8(std::string_view text) {
  if (!sim::is_utf8(text)) {
    std::fprintf(stderr, "railsim fuzz: output that is not UTF-8\n");
    std::abort();
  }
}

int parse_tool_output_as(const std::uint8_t* data, std::size_t size, const char* format) {
  const std::string path = write_input(as_text(data, size), ".txt");
  for (const char* output : {"json", "csv"}) {
    std::ostringstream out;
    expect_clean([&] { tools::run_parse({path, "--as", format, "--format", output}, out); });
    if (std::string_view(output) == "json") {
      require_utf8(out.str());
    }
  }
  return 0;
}

}  // namespace railsim::fuzz
