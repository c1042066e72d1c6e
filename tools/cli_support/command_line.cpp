// File: tools/cli_support/command_line.cpp
#include "tools/cli_support/command_line.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace railsim::tools {

namespace po = boost::program_options;

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
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  if (vm.count("help")) {
    fmt::print(out, "{}\n\n{}", summary, fmt::streamed(options));
    return false;
  }
  po::notify(vm);
  return true;
}

}  // namespace railsim::tools
