// File: calibrate/parse/launcher_prefix.hpp
// The prefixes MPI and Slurm launchers put in front of every line a rank prints, which a log
// captured the usual way carries and the tool's own output does not:
// - OpenMPI `mpirun --tag-output`: "[1,0]<stdout>:" (job, rank) or "<stderr>:";
// - Slurm `srun -l`: "0: " (the task number, right-aligned: " 3: ");
// - MPICH and Intel MPI `mpirun -l` / `-prepend-rank`: "[0] ";
// - a Python launcher's "(name, rank=0, pid=1234) ".
// NCCL's own lines ("host:pid:tid [0] NCCL INFO ...") keep their "[0]": it is not at the start.
#pragma once

#include "calibrate/parse/text_input.hpp"

#include <string_view>

namespace railsim::calibrate::parse {

// `line` without one leading launcher prefix, if it has one.
std::string_view without_launcher_prefix(std::string_view line);

// The input with every line's launcher prefix taken off; line numbers stay those of the file.
TextInput without_launcher_prefixes(const TextInput& input);

}  // namespace railsim::calibrate::parse
