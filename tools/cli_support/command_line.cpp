// File: tools/cli_support/command_line.cpp
#include "tools/cli_support/command_line.hpp"

#include "models/did_you_mean.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cstdint>
#include <limits>
#include <sstream>

namespace railsim::tools {

namespace po = boost::program_options;

namespace {

// The usage line: the first line of the options' caption.
std::string usage_of(const po::options_description& options) {
  std::ostringstream text;
  text << options;
  const std::string all = text.str();
  return all.substr(0, all.find('\n'));
}

bool is_positional(const po::positional_options_description& positional, const std::string& name) {
  const unsigned count = positional.max_total_count();
  const unsigned named = count == std::numeric_limits<unsigned>::max() ? 1 : count;
  for (unsigned i = 0; i < named; ++i) {
    if (positional.name_for_position(i) == name) {
      return true;
    }
  }
  return false;
}

// "--stepfactor: expected an integer", from the option's type.
std::string expected_type(const po::options_description& options, const std::string& name) {
  const po::option_description* option = options.find_nothrow(name, false);
  const po::value_semantic* semantic = option == nullptr ? nullptr : option->semantic().get();
  if (dynamic_cast<const po::typed_value<int>*>(semantic) != nullptr ||
      dynamic_cast<const po::typed_value<std::int64_t>*>(semantic) != nullptr) {
    return "an integer";
  }
  if (dynamic_cast<const po::typed_value<double>*>(semantic) != nullptr) {
    return "a number";
  }
  return "a value of its kind (see --help)";
}

// Boost's own words for bad usage ("the option '--scenario' is required but missing", "the
// argument ('1.5') for option '--stepfactor' is invalid") in railsim's: the option as typed,
// what was expected, the usage line where the user left out an argument.
[[noreturn]] void rethrow_in_our_words(const po::error& error,
                                       const po::options_description& options,
                                       const po::positional_options_description& positional) {
  const std::string usage = usage_of(options);
  if (const auto* missing = dynamic_cast<const po::required_option*>(&error)) {
    const std::string name = missing->get_option_name().substr(2);  // without "--"
    if (is_positional(positional, name)) {
      throw sim::InputError(fmt::format("missing the {} argument (usage: {})", name, usage));
    }
    throw sim::InputError(fmt::format("--{} is required (usage: {})", name, usage));
  }
  if (const auto* unknown = dynamic_cast<const po::unknown_option*>(&error)) {
    const std::string name = unknown->get_option_name();
    std::vector<std::string> names;
    for (const auto& option : options.options()) {
      names.push_back("--" + option->long_name());
    }
    throw sim::InputError(
        fmt::format("unknown option '{}'{}", name, models::did_you_mean(name, names)));
  }
  if (const auto* invalid = dynamic_cast<const po::invalid_option_value*>(&error)) {
    // Boost keeps the value only in its message: "the argument ('1.5') for option ...".
    const std::string what = invalid->what();
    const std::size_t open = what.find("('");
    const std::size_t close = what.find("')", open);
    const std::string value =
        open == std::string::npos || close == std::string::npos
            ? std::string()
            : fmt::format(", got '{}'", what.substr(open + 2, close - open - 2));
    const std::string name = invalid->get_option_name();
    throw sim::InputError(
        fmt::format("{}: expected {}{}", name,
                    expected_type(options, name.substr(name.find_first_not_of('-'))), value));
  }
  if (dynamic_cast<const po::too_many_positional_options_error*>(&error) != nullptr) {
    throw sim::InputError(fmt::format("too many arguments (usage: {})", usage));
  }
  if (const auto* twice = dynamic_cast<const po::multiple_occurrences*>(&error)) {
    throw sim::InputError(fmt::format("{}: given more than once", twice->get_option_name()));
  }
  if (const auto* syntax = dynamic_cast<const po::invalid_command_line_syntax*>(&error);
      syntax != nullptr && syntax->kind() == po::invalid_syntax::missing_parameter) {
    throw sim::InputError(fmt::format("{}: expected a value after it", syntax->get_option_name()));
  }
  throw sim::InputError(error.what());
}

}  // namespace

bool parse_command_line(const std::vector<std::string>& args,
                        po::options_description& options,
                        const std::string& summary,
                        std::ostream& out,
                        po::variables_map& vm) {
  return parse_command_line(args, options, po::positional_options_description{}, summary, out, vm);
}

bool parse_command_line(const std::vector<std::string>& args,
                        po::options_description& options,
                        const po::positional_options_description& positional,
                        const std::string& summary,
                        std::ostream& out,
                        po::variables_map& vm) {
  options.add_options()("help,h", "show this help");
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    if (vm.count("help")) {
      fmt::print(out, "{}\n\n{}", summary, fmt::streamed(options));
      return false;
    }
    po::notify(vm);
  } catch (const po::error& error) {
    rethrow_in_our_words(error, options, positional);
  }
  return true;
}

}  // namespace railsim::tools
