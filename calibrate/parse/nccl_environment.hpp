// File: calibrate/parse/nccl_environment.hpp
// The NCCL variables a log shows a run was made with. Logs show them three ways, from the
// weakest word to the strongest: a shell's "export NCCL_ALGO=RING" pasted above the run (in
// force for every later run), the command that started it ("mpirun -x NCCL_ALGO=Tree ...
// ./all_reduce_perf", "NCCL_PROTO=Simple ./all_gather_perf", srun's
// "--export=ALL,NCCL_ALGO=Ring", MPICH's "-genv NCCL_ALGO Ring"; for the next run only), and
// NCCL's own INFO line "NCCL_ALGO set by environment to Ring", which it prints under
// NCCL_DEBUG=INFO as it reads the variable (for the run whose table follows it).
#pragma once

#include "calibrate/parse/text_input.hpp"

#include <string>
#include <vector>

namespace railsim::calibrate::parse {

struct NcclSetting {
  std::string name;  // "NCCL_ALGO"
  std::string value;
  int line = 0;  // where the log says it

  bool operator==(const NcclSetting&) const = default;
};

// A run's lines: its first, and the last of its table.
struct RunLines {
  int first = 0;
  int last = 0;
};

// For each run of `runs` (in the order of the log, launcher prefixes already off `input`), the
// NCCL variables in force, one per name, sorted by name.
std::vector<std::vector<NcclSetting>> run_environments(const TextInput& input,
                                                       const std::vector<RunLines>& runs);

}  // namespace railsim::calibrate::parse
