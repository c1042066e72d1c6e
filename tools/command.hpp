// File: tools/command.hpp
// The shape every `railsim` subcommand shares: a name, a one-line summary for `railsim --help`,
// and an entry point taking the subcommand's own arguments (without the program and command
// names). Entry points throw sim::InputError for bad input; main() turns that into exit status 2.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace railsim::tools {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args, std::ostream& out);
};

int run_engine_demo(const std::vector<std::string>& args, std::ostream& out);
int run_topo(const std::vector<std::string>& args, std::ostream& out);
int run_p2p(const std::vector<std::string>& args, std::ostream& out);
int run_collective(const std::vector<std::string>& args, std::ostream& out);
int run_run(const std::vector<std::string>& args, std::ostream& out);
int run_compare(const std::vector<std::string>& args, std::ostream& out);
int run_parse(const std::vector<std::string>& args, std::ostream& out);
int run_calibrate(const std::vector<std::string>& args, std::ostream& out);
int run_step_command(const std::vector<std::string>& args, std::ostream& out);
int run_sweep_command(const std::vector<std::string>& args, std::ostream& out);
int run_check(const std::vector<std::string>& args, std::ostream& out);
int run_diagnose(const std::vector<std::string>& args, std::ostream& out);

}  // namespace railsim::tools
