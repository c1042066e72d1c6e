// File: tools/sweep/sweep_merge.hpp
// Joining the outputs of a sweep's shards (`railsim sweep --merge DIR...`) into the output the
// unsharded sweep would have written.
#pragma once

#include "tools/sweep/sweep_results.hpp"

#include <string>
#include <vector>

namespace railsim::tools::sweep {

// Reads DIR/results.json of every folder and joins them: the same sweep_hash in all, every
// point of the sweep in exactly one of them (by the shards they ran), rows by point. An
// InputError names the folder of a mismatch or a duplicate, and the shard a missing point
// belongs to.
SweepResults merge_results(const std::vector<std::string>& folders);

}  // namespace railsim::tools::sweep
