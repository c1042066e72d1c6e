// File: tools/terminal_colour.cpp
#include "tools/terminal_colour.hpp"

#include <fmt/color.h>

#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace railsim::tools {

bool colour_on(const std::ostream& out) {
  return &out == &std::cout && isatty(STDOUT_FILENO) != 0 && std::getenv("NO_COLOR") == nullptr;
}

std::string failure_text(const std::string& text, bool colour) {
  return colour ? fmt::format(fmt::emphasis::bold | fmt::fg(fmt::terminal_color::red), "{}", text)
                : text;
}

}  // namespace railsim::tools
