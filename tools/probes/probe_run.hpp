// File: tools/probes/probe_run.hpp
// How a probe program ends: its body returns an exit status, and every failure, whether bad
// arguments (sim::InputError, Boost's option errors) or the device, the network or the peer
// failing at run time (ProbeFailure), becomes one line "PROGRAM: error: ..." and exit status 2.
#pragma once

#include <functional>
#include <ostream>
#include <stdexcept>
#include <string_view>

namespace railsim::tools::probes {

// A failure of the run itself rather than of its arguments: no such device, a verbs or CUDA
// call refused, the peer gone or speaking another protocol.
class ProbeFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kProbeErrorStatus = 2;

// Runs `body` and returns its status, or prints "`program`: error: what" on `err` and returns
// kProbeErrorStatus for any exception it throws.
int run_probe(std::string_view program, std::ostream& err, const std::function<int()>& body);

}  // namespace railsim::tools::probes
