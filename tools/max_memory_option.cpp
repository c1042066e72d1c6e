// File: tools/max_memory_option.cpp
#include "tools/max_memory_option.hpp"

#include "models/scenario/quantity.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

namespace railsim::tools {

std::string max_memory_help() {
  return fmt::format(
      "refuse a request estimated to need more memory than this, before running it (default "
      "{} GiB)",
      models::kDefaultMaxMemoryBytes >> 30);
}

models::WorkLimit parse_max_memory(const std::string& text) {
  constexpr std::int64_t kMinimum = std::int64_t{1} << 20;
  std::int64_t bytes = 0;
  try {
    bytes = models::scenario::parse_size(text).count;
  } catch (const sim::InputError& error) {
    throw sim::InputError(fmt::format("--max-memory: {}", error.what()));
  }
  if (bytes < kMinimum) {
    throw sim::InputError(
        fmt::format("--max-memory: expected at least 1M (one MiB), got \"{}\"", text));
  }
  return models::WorkLimit{bytes};
}

}  // namespace railsim::tools
