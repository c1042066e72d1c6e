// File: tools/probes/probe_run.cpp
#include "tools/probes/probe_run.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cstdio>
#include <exception>

namespace railsim::tools::probes {

int run_probe(std::string_view program, std::ostream& err, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& error) {
    // What was printed before the failure stays readable and ahead of the message.
    std::fflush(stdout);
    fmt::print(err, "{}: error: {}\n", program, error.what());
  }
  return kProbeErrorStatus;
}

}  // namespace railsim::tools::probes
