// File: tools/main.cpp
// `railsim`: global options (--help, --version) and dispatch to the subcommands. Every error
// the libraries report as bad input ends here as `railsim: error: ...` with exit status 2.
#include "railsim/commit.hpp"
#include "railsim/version.hpp"

#include "models/did_you_mean.hpp"
#include "sim/assert.hpp"
#include "sim/input_error.hpp"
#include "tools/command.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

namespace po = boost::program_options;

namespace railsim::tools {
namespace {

constexpr Command kCommands[] = {
    {"engine-demo", "a few flows sharing links: their rates over time and finish times",
     run_engine_demo},
    {"topo", "a server's GPU/NIC distance matrix, as nvidia-smi topo -m prints it", run_topo},
    {"p2p", "an RDMA write stream between two nodes, printed as ib_write_bw prints it", run_p2p},
    {"collective", "a collective over a size sweep, printed as nccl-tests prints it",
     run_collective},
    {"run", "a scenario's collective workload on its system", run_run},
    {"compare", "one workload on several systems, side by side", run_compare},
    {"parse", "a real tool's output (perftest, nccl-tests, nvidia-smi topo, ...) as JSON or CSV",
     run_parse},
    {"calibrate", "fit the model's parameters to perftest / nccl-tests outputs: a profile",
     run_calibrate},
    {"step", "one training step on a system: step time, critical path, faults' slowdown",
     run_step_command},
    {"sweep", "every point of a sweep file, run in parallel, into one CSV/JSON table",
     run_sweep_command},
    {"check", "a cluster's measurements against its design, layer by layer: what fails, and why",
     run_check},
    {"diagnose", "the faults that make the design reproduce a cluster's measurements, ranked",
     run_diagnose},
};

void print_help(std::ostream& out) {
  fmt::print(out,
             "railsim {}: a discrete-event simulator of GPU-cluster fabrics and collectives\n\n"
             "usage: railsim [--help] [--version] <command> [<args>]\n\n"
             "commands:\n",
             kVersion);
  for (const Command& command : kCommands) {
    fmt::print(out, "  {:<14} {}\n", command.name, command.summary);
  }
  fmt::print(out, "\n`railsim <command> --help` describes a command's options.\n");
}

int run(int argc, char** argv) {
  // Global options stand before the command name; everything after it is the command's own,
  // so that `railsim engine-demo --help` reaches the command.
  int command_at = 1;
  while (command_at < argc && argv[command_at][0] == '-') {
    ++command_at;
  }
  po::options_description global("options");
  global.add_options()("help,h", "show this help")("version", "print the version");
  po::variables_map vm;
  po::store(po::command_line_parser(command_at, argv).options(global).run(), vm);
  if (vm.count("version")) {
    fmt::print("railsim {} (commit {})\n", kVersion, kCommit);
    return 0;
  }
  if (vm.count("help")) {
    print_help(std::cout);
    return 0;
  }
  if (command_at == argc) {
    throw sim::InputError("no command given (railsim --help lists them)");
  }
  const std::string name = argv[command_at];
  const std::vector<std::string> rest(argv + command_at + 1, argv + argc);
  std::vector<std::string> names;
  for (const Command& command : kCommands) {
    if (name == command.name) {
      return command.run(rest, std::cout);
    }
    names.emplace_back(command.name);
  }
  throw sim::InputError("unknown command '" + name + "'" + models::did_you_mean(name, names) +
                        " (railsim --help lists them)");
}

}  // namespace
}  // namespace railsim::tools

int main(int argc, char** argv) {
  try {
    return railsim::tools::run(argc, argv);
  } catch (const railsim::sim::InputError& error) {
    std::fflush(stdout);
    fmt::print(stderr, "railsim: error: {}\n", error.what());
  } catch (const po::error& error) {
    std::fflush(stdout);
    fmt::print(stderr, "railsim: error: {}\n", error.what());
  } catch (const std::bad_alloc&) {
    // The run asked for more than the machine holds, which --max-memory's estimate (a floor) did
    // not foresee; its structures are freed by now, and outputs are written whole or not at all.
    std::fflush(stdout);
    fmt::print(stderr,
               "railsim: error: out of memory: this run needs more memory than the machine "
               "gives it; try fewer nodes or sizes, or ECMP instead of adaptive routing, whose "
               "lanes take memory per connection (docs/performance.md, section (h))\n");
  } catch (const std::exception& error) {
    std::fflush(stdout);
    fmt::print(stderr, "railsim: internal error (please report it): {}\n", error.what());
    return 3;
  }
  return 2;
}
