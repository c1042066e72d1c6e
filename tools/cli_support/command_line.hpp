// File: tools/cli_support/command_line.hpp
// Option parsing every subcommand shares: parse its arguments against its options, and print
// its help (a summary line, then the options) when --help is among them.
#pragma once

#include <boost/program_options.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace railsim::tools {

// Adds --help to `options`, parses `args` into `vm` and notifies. Returns false after printing
// the help, true when the command should run. Bad usage is an InputError in railsim's words
// (an unknown option with the closest one, a missing argument with the usage line, a value of
// the wrong type with the type expected); main prints it, exit status 2.
bool parse_command_line(const std::vector<std::string>& args,
                        boost::program_options::options_description& options,
                        const std::string& summary,
                        std::ostream& out,
                        boost::program_options::variables_map& vm);

// The same, for a command that also takes positional arguments (railsim run SCENARIO.json).
bool parse_command_line(const std::vector<std::string>& args,
                        boost::program_options::options_description& options,
                        const boost::program_options::positional_options_description& positional,
                        const std::string& summary,
                        std::ostream& out,
                        boost::program_options::variables_map& vm);

// A command's entry point: `run` on the options `parse` reads from `args`, or exit status 0 when
// `parse` printed the help instead (nullopt).
template <typename Options>
int parse_and_run(const std::vector<std::string>& args,
                  std::ostream& out,
                  std::optional<Options> (*parse)(const std::vector<std::string>&, std::ostream&),
                  int (*run)(const Options&, std::ostream&)) {
  const std::optional<Options> options = parse(args, out);
  return options ? run(*options, out) : 0;
}

}  // namespace railsim::tools
