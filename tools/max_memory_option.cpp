// File: tools/max_memory_option.cpp
#include "tools/max_memory_option.hpp"

#include "models/scenario/quantity.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

namespace railsim::tools {

namespace {

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

}  // namespace

void add_max_memory_option(boost::program_options::options_description& options,
                           models::WorkLimit& limit,
                           const std::string& scope) {
  const std::string help = fmt::format(
      "refuse a request estimated to need more memory than this, before running it (default "
      "{} GiB){}{}",
      models::kDefaultMaxMemoryBytes >> 30, scope.empty() ? "" : "; ", scope);
  // The notifier runs inside parse_command_line's notify, so a bad size is an error there.
  options.add_options()("max-memory",
                        boost::program_options::value<std::string>()->value_name("SIZE")->notifier(
                            [&limit](const std::string& text) { limit = parse_max_memory(text); }),
                        help.c_str());
}

}  // namespace railsim::tools
